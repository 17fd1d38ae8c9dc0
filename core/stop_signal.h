#pragma once

#include <cstddef>

namespace mnrl::core {

// Ctrl-C / SIGTERM handling for long runs. After install(), the first SIGINT or SIGTERM only
// sets a flag that the training loop polls at safe points (so it can flush metrics and write
// its summary); a second one ends the process at once with the usual 128+signal status.
//
// A process stuck where the flag is never polled (an env plugin spinning in step()) would
// ignore the request: the stuck probe (if set) is asked at the request and every
// kStopGraceSeconds after it, and when it reports the process stuck, the process says so and
// ends with 128+signal. Its last checkpoint is whatever was written before.
void install_stop_handlers();
bool stop_requested();
// The signal that asked to stop (SIGINT / SIGTERM), 0 if none.
int stop_signal();

constexpr unsigned kStopGraceSeconds = 10;

// Says whether the process is stuck since the last call, writing what it is stuck in into
// `what` (NUL-terminated). Called from a signal handler: must be async-signal-safe.
using StuckProbe = bool (*)(char* what, std::size_t size);
void set_stuck_probe(StuckProbe probe);

}  // namespace mnrl::core
