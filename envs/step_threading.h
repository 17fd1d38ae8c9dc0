#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>

namespace mnrl::envs {

// Whether a vector env's step is worth handing to its threads. Handing over costs waking the
// pool's threads (they sleep once the agent's update has kept them idle) and moving the envs'
// rows between caches: tens of microseconds. A step whose envs take less than that together
// (MinAtar, classic control: about a microsecond for 8 envs) runs faster on the caller alone,
// and threads made such envs 2-4x slower. So every kMeasureEvery-th step runs serially and is
// timed, and the least of the last kWindow timed steps decides for the others (a step the OS
// interrupted reads long; the least is what the envs cost). Results never depend on it: a
// threaded step is bit-identical to a serial one.
class StepThreading {
 public:
  // A step is worth threads from this much env work on one thread. With 2 threads a step of W
  // then takes about W / 2 + the hand-over, at most ~25 us: 1.3x faster at 100 us, and a
  // cheaper step would gain little and lose much if the hand-over ran long.
  static constexpr std::chrono::nanoseconds kThreadedFrom{100'000};
  static constexpr std::int64_t kMeasureEvery = 32;
  static constexpr std::size_t kWindow = 4;

  // Whether the next step is to run serially and be timed: then record() its duration, else
  // count it with unmeasured().
  bool measure_next() const { return !always_ && steps_ % kMeasureEvery == 0; }
  void record(std::chrono::nanoseconds serial) {
    recent_[measured_++ % kWindow] = serial;
    ++steps_;
  }
  void unmeasured() { ++steps_; }
  // Whether the steps that are not measured go to the threads.
  bool threaded() const {
    if (always_) return true;
    if (measured_ == 0) return false;
    const auto filled = static_cast<std::ptrdiff_t>(std::min<std::int64_t>(measured_, kWindow));
    return *std::min_element(recent_.begin(), recent_.begin() + filled) >= kThreadedFrom;
  }
  // Every step to the threads, none measured: for tests and benchmarks of the threads
  // themselves.
  void always_thread() { always_ = true; }

 private:
  bool always_ = false;
  std::int64_t steps_ = 0, measured_ = 0;
  std::array<std::chrono::nanoseconds, kWindow> recent_{};
};

}  // namespace mnrl::envs
