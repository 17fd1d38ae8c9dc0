#include "envs/plugin_call.h"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "core/crash_note.h"
#include "core/stop_signal.h"

namespace mnrl::envs {

// Reads PluginCall's fields for the reports.
struct PluginCallReporting {
  // Writes "<call> of <env> (episode E, step S)" into `out`.
  static void describe(const PluginCall& call, char* out, std::size_t size);
};

namespace {

// The innermost plugin call of this thread. Initial-exec: read from signal handlers.
thread_local const PluginCall* current_call __attribute__((tls_model("initial-exec"))) = nullptr;
std::atomic<int> calls_in_progress{0};
std::atomic<std::uint64_t> calls_started{0};
std::atomic<const PluginCall*> latest_call{nullptr};  // the last one started, while it runs
// In a child that a plugin call fork()ed: that call is returning into a copy of mnrl.
volatile std::sig_atomic_t forked_in_call = 0;

// Appends `text` to the NUL-terminated `out` of `size` bytes, truncating.
void append(char* out, std::size_t size, const char* text) {
  std::size_t used = std::strlen(out);
  while (*text && used + 1 < size) out[used++] = *text++;
  out[used] = '\0';
}

void append_number(char* out, std::size_t size, std::int64_t value) {
  char digits[24];
  int count = 0;
  std::uint64_t magnitude =
      value < 0 ? 0 - static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value);
  do {
    digits[count++] = static_cast<char>('0' + magnitude % 10);
    magnitude /= 10;
  } while (magnitude > 0);
  if (value < 0) append(out, size, "-");
  char text[24];
  for (int i = 0; i < count; ++i) text[i] = digits[count - 1 - i];
  text[count] = '\0';
  append(out, size, text);
}

void write_text(const char* text) {
  if (::write(STDERR_FILENO, text, std::strlen(text)) < 0) {
    // Nothing more can be done from a signal handler.
  }
}

const char* signal_description(int signal) {
  switch (signal) {
    case SIGSEGV:
      return "SIGSEGV (segmentation fault)";
    case SIGBUS:
      return "SIGBUS (bus error)";
    case SIGFPE:
      return "SIGFPE (arithmetic exception)";
    case SIGILL:
      return "SIGILL (illegal instruction)";
    case SIGABRT:
      return "SIGABRT (abort)";
    default:
      return "a fatal signal";
  }
}

extern "C" void on_fatal_signal(int signal) {
  char message[768] = "\nmnrl: ";
  append(message, sizeof message, signal_description(signal));
  if (const PluginCall* call = current_call) {
    append(message, sizeof message, " in ");
    char what[512] = {};
    PluginCallReporting::describe(*call, what, sizeof what);
    append(message, sizeof message, what);
    append(message, sizeof message, ": the env plugin crashed the process\n");
  } else if (const char* note = core::crash_note()) {
    append(message, sizeof message, " ");
    append(message, sizeof message, note);
    append(message, sizeof message, "\n");
  } else {
    append(message, sizeof message, " (not in an env plugin call)\n");
  }
  write_text(message);
  // SA_RESETHAND restored the default action: die of the signal, as without this handler.
  std::raise(signal);
}

// An exit() or quick_exit() inside a plugin call ends the run as a failure, said so.
void fail_if_exiting_from_plugin(const char* how) {
  const PluginCall* call = current_call;
  if (!call) return;
  char message[768] = "\nmnrl: ";
  char what[512] = {};
  PluginCallReporting::describe(*call, what, sizeof what);
  append(message, sizeof message, what);
  append(message, sizeof message, " called ");
  append(message, sizeof message, how);
  append(message, sizeof message, ": an env must not end the process; the run failed\n");
  write_text(message);
  _exit(1);
}

}  // namespace

// exit() runs the static destructors while the main thread still uses them: from another
// thread of a process with plugin envs (one a plugin started: mnrl's own never exit), the run
// fails instead, said so.
void fail_if_exiting_from_another_thread() {
  if (calls_started.load() == 0 || ::gettid() == ::getpid()) return;
  write_text(
      "\nmnrl: a thread other than the main one called exit() (a thread of an env "
      "plugin?): an env must not end the process; the run failed\n");
  _exit(1);
}

namespace {

extern "C" void on_exit_call() {
  if (forked_in_call) return;  // the plugin's own child ends as it likes
  fail_if_exiting_from_plugin("exit()");
  fail_if_exiting_from_another_thread();
}
extern "C" void on_quick_exit_call() { fail_if_exiting_from_plugin("quick_exit()"); }

extern "C" void on_fork_child() {
  if (current_call) forked_in_call = 1;
}

// A child forked inside `call` returns from it into mnrl: it would train into the same run
// directory beside its parent. It ends here; the parent goes on.
void end_forked_child(const PluginCall& call) {
  char message[768] = "\nmnrl: ";
  char what[512] = {};
  PluginCallReporting::describe(call, what, sizeof what);
  append(message, sizeof message, what);
  append(message, sizeof message,
         " forked the process and the child returned to mnrl; the child ends (the run goes on "
         "in the parent)\n");
  write_text(message);
  _exit(1);
}

// The stuck probe: a plugin call in progress and none started since the previous probe.
bool stuck_in_plugin_call(char* what, std::size_t size) {
  static std::uint64_t started_at_last_probe = ~std::uint64_t{0};
  const std::uint64_t started = calls_started.load();
  const bool stuck = calls_in_progress.load() > 0 && started == started_at_last_probe;
  started_at_last_probe = started;
  if (!stuck) return false;
  what[0] = '\0';
  if (const PluginCall* call = latest_call.load()) {
    PluginCallReporting::describe(*call, what, size);
    append(what, size, " has not returned");
  } else {
    append(what, size, "a call of an env plugin has not returned");
  }
  return true;
}

}  // namespace

void PluginCallReporting::describe(const PluginCall& call, char* out, std::size_t size) {
  append(out, size, call.call_);
  append(out, size, " of ");
  append(out, size, call.env_);
  if (!call.episode_) return;  // its constructor
  append(out, size, " (episode ");
  append_number(out, size, *call.episode_);
  append(out, size, ", step ");
  append_number(out, size, *call.step_);
  append(out, size, ")");
}

PluginCall::PluginCall(const char* env, const char* call, const std::int64_t* episode,
                       const std::int64_t* step)
    : outer_(current_call), env_(env), call_(call), episode_(episode), step_(step) {
  current_call = this;
  calls_in_progress.fetch_add(1);
  calls_started.fetch_add(1);
  latest_call.store(this);
}

PluginCall::~PluginCall() {
  if (forked_in_call) end_forked_child(*this);
  const PluginCall* self = this;
  latest_call.compare_exchange_strong(self, nullptr);
  calls_in_progress.fetch_sub(1);
  current_call = outer_;
}

void install_plugin_call_reporting() {
  struct sigaction action {};
  action.sa_handler = on_fatal_signal;
  action.sa_flags = SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (const int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) {
    sigaction(signal, &action, nullptr);
  }
  // Registered on every call: exit handlers run last-registered first, so this one runs before
  // those registered since (MPI's finalization, which would wait for the other ranks).
  std::atexit(on_exit_call);
  std::at_quick_exit(on_quick_exit_call);
  static const bool fork_handler_registered = pthread_atfork(nullptr, nullptr, on_fork_child) == 0;
  (void)fork_handler_registered;
  core::set_stuck_probe(stuck_in_plugin_call);
}

}  // namespace mnrl::envs
