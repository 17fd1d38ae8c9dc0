#pragma once

#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <string>

#include "experiments/metrics/metrics.h"

namespace mnrl::experiments {

// How training progress is shown (`mnrl train --progress`).
enum class ProgressMode {
  kAuto,   // live on a terminal, lines otherwise
  kLive,   // one line redrawn in place
  kLines,  // a line every log_interval steps
  kNone,   // nothing but the first and last lines
};

// The live console line: steps, SPS, mean episodic return of the last 100 episodes, losses,
// last evaluation (with its step) and ETA. Live, it redraws one line in place (at most 10 times
// a second); as lines (a log file, CI) it prints a line every `log_interval` steps, so a log
// never fills with redraws. SPS and ETA appear once kRateSeconds have passed (a rate from the
// first steps, before any update, says nothing). The step shown is the true one, which may pass
// total_steps by less than one vector step of every rank; the percentage stops at 100.
class ConsoleReporter final : public MetricsSink {
 public:
  // Seconds on a monotonic clock.
  using Clock = std::function<double()>;
  static constexpr double kRateSeconds = 2.0;

  // `first_step`: where a resumed run starts (SPS and ETA count from there). `clock`: the
  // steady clock unless a test gives its own.
  ConsoleReporter(std::FILE* out, std::int64_t total_steps, std::int64_t log_interval,
                  std::int64_t first_step = 0, ProgressMode mode = ProgressMode::kAuto,
                  Clock clock = nullptr);

  void scalar(std::int64_t step, const std::string& name, double value) override;
  void progress(std::int64_t step) override;
  // Ends the live line (if any) so the next output starts on a fresh line.
  void flush() override;

  // The line as it would be printed now (for tests and the final summary).
  std::string line(std::int64_t step) const;

 private:
  void print(std::int64_t step);
  std::string losses() const;

  std::FILE* out_;
  ProgressMode mode_;  // kLive, kLines or kNone: kAuto resolved
  std::int64_t total_steps_;
  std::int64_t first_step_;
  std::int64_t log_interval_;
  std::int64_t next_log_step_;
  Clock clock_;
  double start_seconds_;
  double last_draw_seconds_ = -1.0;
  bool line_open_ = false;
  std::deque<double> recent_returns_;  // last 100 episodes
  std::map<std::string, double> latest_;
  std::int64_t eval_step_ = 0;  // the step of latest_'s eval/mean_return
};

}  // namespace mnrl::experiments
