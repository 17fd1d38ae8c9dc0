#pragma once

namespace mnrl::core {

// Ctrl-C / SIGTERM handling for long runs. After install(), the first SIGINT or SIGTERM only
// sets a flag that the training loop polls at safe points (so it can flush metrics and write
// its summary); a second one ends the process at once with the usual 128+signal status.
void install_stop_handlers();
bool stop_requested();
// The signal that asked to stop (SIGINT / SIGTERM), 0 if none.
int stop_signal();

}  // namespace mnrl::core
