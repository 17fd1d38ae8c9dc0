#pragma once

#include <functional>

namespace mnrl::core {

// A rank of a job that works alone for a long time (rank 0 evaluating or writing a checkpoint)
// while the others wait for it says so through report_alive(), so that their stall watchdog
// (distributed.timeout) does not take it for a hung rank. Cheap enough to call at every step:
// the reporter set by the job's communicator sends at most one message a second.
void report_alive();

// The function report_alive() calls; empty for none (one process).
void set_alive_reporter(std::function<void()> reporter);
const std::function<void()>& alive_reporter();

}  // namespace mnrl::core
