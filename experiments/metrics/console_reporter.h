#pragma once

#include <cstdint>
#include <cstdio>
#include <deque>
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
// last evaluation and ETA. Live, it redraws one line in place (at most 10 times a second); as
// lines (a log file, CI) it prints a line every `log_interval` steps, so a log never fills
// with redraws.
class ConsoleReporter final : public MetricsSink {
 public:
  // `first_step`: where a resumed run starts (SPS and ETA count from there).
  ConsoleReporter(std::FILE* out, std::int64_t total_steps, std::int64_t log_interval,
                  std::int64_t first_step = 0, ProgressMode mode = ProgressMode::kAuto);

  void scalar(std::int64_t step, const std::string& name, double value) override;
  void progress(std::int64_t step) override;
  // Ends the live line (if any) so the next output starts on a fresh line.
  void flush() override;

  // The line as it would be printed now (for tests and the final summary).
  std::string line(std::int64_t step) const;

 private:
  void print(std::int64_t step);

  std::FILE* out_;
  ProgressMode mode_;  // kLive, kLines or kNone: kAuto resolved
  std::int64_t total_steps_;
  std::int64_t first_step_;
  std::int64_t log_interval_;
  std::int64_t next_log_step_;
  double start_seconds_;
  double last_draw_seconds_ = -1.0;
  bool line_open_ = false;
  std::deque<double> recent_returns_;  // last 100 episodes
  std::map<std::string, double> latest_;
};

}  // namespace mnrl::experiments
