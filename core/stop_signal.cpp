#include "core/stop_signal.h"

#include <unistd.h>

#include <csignal>
#include <cstring>

namespace mnrl::core {
namespace {

volatile std::sig_atomic_t received_signal = 0;
volatile StuckProbe stuck_probe = nullptr;
bool handlers_installed = false;

// The stop signals the process was started ignoring (nohup, a background job): they stay
// ignored. Read before main(), so before any plugin code could change them.
sigset_t stop_signals_ignored_at_start() {
  sigset_t ignored;
  sigemptyset(&ignored);
  for (const int signal : kStopSignals) {
    struct sigaction inherited {};
    sigaction(signal, nullptr, &inherited);
    if (inherited.sa_handler == SIG_IGN) sigaddset(&ignored, signal);
  }
  return ignored;
}
const sigset_t ignored_at_start = stop_signals_ignored_at_start();

void write_text(const char* text) {
  if (::write(STDERR_FILENO, text, std::strlen(text)) < 0) {
    // Nothing more can be done from a signal handler.
  }
}

extern "C" void on_stop_signal(int signal) {
  if (received_signal != 0) {
    // A second Ctrl-C or SIGTERM is someone insisting: leave now. A SIGHUP or SIGUSR1 often
    // comes twice on its own (the shell and the kernel both hang up a dropped ssh session's
    // jobs; Slurm and mpirun both forward USR1): the first one's stop goes on.
    if (signal == SIGINT || signal == SIGTERM) _exit(128 + signal);
    return;
  }
  received_signal = signal;
  if (const StuckProbe probe = stuck_probe) {
    char ignored[8];
    probe(ignored, sizeof ignored);  // the state to compare with when the grace period ends
  }
  alarm(kStopGraceSeconds);
}

// kStopGraceSeconds after a stop request, and every as long after that, while the process
// runs: ends it if the probe finds it stuck.
extern "C" void on_grace_expired(int) {
  char what[512] = {};
  const StuckProbe probe = stuck_probe;
  if (!probe || !probe(what, sizeof what)) {
    alarm(kStopGraceSeconds);
    return;
  }
  static_assert(kStopGraceSeconds == 10, "the message below says 10 s");
  write_text("\nmnrl: still running 10 s after the stop request: ");
  write_text(what);
  write_text("; ending now (checkpoints written before are kept)\n");
  _exit(128 + received_signal);
}

}  // namespace

void install_stop_handlers() {
  handlers_installed = true;
  reassert_stop_handlers();
}

void reassert_stop_handlers() {
  if (!handlers_installed) return;
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  for (const int signal : kStopSignals) {
    if (sigismember(&ignored_at_start, signal) != 1) sigaction(signal, &action, nullptr);
  }
  // A closed pipe on stdout or stderr (`mnrl train ... | head -1`) fails the writes to it with
  // EPIPE instead of killing the process.
  std::signal(SIGPIPE, SIG_IGN);
  struct sigaction grace {};
  grace.sa_handler = on_grace_expired;
  sigemptyset(&grace.sa_mask);
  sigaction(SIGALRM, &grace, nullptr);
}

bool stop_requested() { return received_signal != 0; }

int stop_signal() { return received_signal; }

void set_stuck_probe(StuckProbe probe) { stuck_probe = probe; }

}  // namespace mnrl::core
