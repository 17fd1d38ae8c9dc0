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

// A rank waiting in one exchange (for another rank, on one communicator) tells the ranks of
// its other communicators that it waits rather than hangs, through report_waiting(): an actor
// whose learner waits for the other learners is not taken for a hung rank. Rate-limited by
// the reporter.
void report_waiting();
void set_waiting_reporter(std::function<void()> reporter);
const std::function<void()>& waiting_reporter();

}  // namespace mnrl::core
