#pragma once

#include <csignal>
#include <cstddef>

namespace mnrl::core {

// Stop requests for long runs: Ctrl-C (SIGINT), SIGTERM (kill, scancel, mpirun's Ctrl-C),
// SIGHUP (a closed terminal, a dropped ssh session) and SIGUSR1 (a batch system's warning
// before a time limit, e.g. Slurm's --signal=USR1@120). After install(), the first of them only
// sets a flag that the training loop polls at safe points (so it can write a checkpoint, flush
// metrics and write its summary); a second one ends the process at once with the usual
// 128+signal status. SIGPIPE is ignored: a closed stdout never ends a run.
//
// A process stuck where the flag is never polled (an env plugin spinning in step()) would
// ignore the request: the stuck probe (if set) is asked at the request and every
// kStopGraceSeconds after it, and when it reports the process stuck, the process says so and
// ends with 128+signal. Its last checkpoint is whatever was written before.
inline constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR1};
void install_stop_handlers();
// Puts back what install_stop_handlers() installed, where other code replaced it (an env
// plugin's constructor taking SIGINT); does nothing before install_stop_handlers().
void reassert_stop_handlers();
bool stop_requested();
// The signal that asked to stop (one of kStopSignals), 0 if none.
int stop_signal();

constexpr unsigned kStopGraceSeconds = 10;

// Says whether the process is stuck since the last call, writing what it is stuck in into
// `what` (NUL-terminated). Called from a signal handler: must be async-signal-safe.
using StuckProbe = bool (*)(char* what, std::size_t size);
void set_stuck_probe(StuckProbe probe);

}  // namespace mnrl::core
