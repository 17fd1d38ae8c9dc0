#include "core/stop_signal.h"

#include <csignal>
#include <unistd.h>

namespace mnrl::core {
namespace {

volatile std::sig_atomic_t received_signal = 0;

extern "C" void on_stop_signal(int signal) {
  if (received_signal != 0) _exit(128 + signal);  // second request: leave now
  received_signal = signal;
}

}  // namespace

void install_stop_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool stop_requested() { return received_signal != 0; }

int stop_signal() { return received_signal; }

}  // namespace mnrl::core
