#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/files.h"

namespace mnrl::experiments {

// Receives what a training loop reports. Names follow CleanRL ("charts/episodic_return",
// "charts/SPS", "losses/value_loss", ...) so runs compare across tools.
class MetricsSink {
 public:
  virtual ~MetricsSink() = default;
  virtual void scalar(std::int64_t step, const std::string& name, double value) = 0;
  // Called after every env step of the vector env; cheap unless the sink decides to print.
  virtual void progress(std::int64_t step) {}
  // Makes everything reported so far durable / visible.
  virtual void flush() {}
};

// Discards everything: the sink of the ranks other than 0 in a data-parallel job.
class NoMetrics final : public MetricsSink {
 public:
  void scalar(std::int64_t, const std::string&, double) override {}
};

// Forwards to several sinks.
class MetricsFanOut final : public MetricsSink {
 public:
  void add(MetricsSink* sink) { sinks_.push_back(sink); }
  void scalar(std::int64_t step, const std::string& name, double value) override {
    for (auto* s : sinks_) s->scalar(step, name, value);
  }
  void progress(std::int64_t step) override {
    for (auto* s : sinks_) s->progress(step);
  }
  void flush() override {
    for (auto* s : sinks_) s->flush();
  }

 private:
  std::vector<MetricsSink*> sinks_;
};

// One row of metrics.csv.
struct MetricsRow {
  std::int64_t step = 0;
  double wall_time = 0.0;
  std::string name;
  double value = 0.0;
};

// Parses "step,wall_time,name,value". Returns nullopt for a row cut short (the last row of a
// killed run); throws std::runtime_error naming `path` for a malformed one.
std::optional<MetricsRow> parse_metrics_row(const std::string& line, const std::string& path);

// Calls `on_row(row, line)` for each complete row of the metrics file at `path`. Throws
// std::runtime_error naming the file when it cannot be read, lacks the header, or has a
// malformed row or a line longer than any row (a damaged file is refused, not read whole).
void read_metrics_file(
    const std::string& path,
    const std::function<void(const MetricsRow& row, const std::string& line)>& on_row);

// Throws as read_metrics_file does unless the metrics file at `path` can be resumed: an
// mnrl metrics file, or empty (what a crash can leave: CsvMetrics writes the header anew).
// core::FileError for something other than a regular file.
void check_resumable_metrics_file(const std::string& path);

// metrics.csv in long form, one scalar per row: step,wall_time,name,value (wall_time in
// seconds since the sink was opened). Long form because scalars arrive at different steps;
// pandas: df.pivot_table(index="step", columns="name", values="value").
// Each row goes to the file as it comes, so a failed write (a full disk) stops the run at once
// with the system's reason, rather than at the next checkpoint.
class CsvMetrics final : public MetricsSink {
 public:
  // Creates the file; or, for a run resumed from a checkpoint at step `resumed_at`, keeps the
  // rows up to that step (dropping those written after the checkpoint, which the resumed run
  // writes again) and continues wall_time from the last kept row.
  explicit CsvMetrics(const std::string& path,
                      std::optional<std::int64_t> resumed_at = std::nullopt);
  void scalar(std::int64_t step, const std::string& name, double value) override;

 private:
  std::optional<core::AppendOnlyFile> out_;
  double start_seconds_;
};

}  // namespace mnrl::experiments
