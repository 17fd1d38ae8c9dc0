#include "experiments/metrics/metrics.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "core/files.h"

namespace mnrl::experiments {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

constexpr const char* kHeader = "step,wall_time,name,value";

// Far longer than a row (a metric name and three numbers).
constexpr std::size_t kMaxLineBytes = 4096;

// The next line of `in` without its '\n'; false at the end. Throws for a line too long.
bool read_line(std::istream& in, std::string& line, const std::string& path) {
  line.clear();
  for (int c = in.get(); c != EOF; c = in.get()) {
    if (c == '\n') return true;
    if (line.size() == kMaxLineBytes) {
      throw std::runtime_error("'" + path + "' is not an mnrl metrics file (a line is longer "
                               "than " + std::to_string(kMaxLineBytes) + " bytes)");
    }
    line += static_cast<char>(c);
  }
  return !line.empty();
}

// A crash can leave metrics.csv empty: rows go to the kernel as they come, and only a
// checkpoint is flushed to disk. The rows are lost then, but the run is not.
bool is_empty_file(const std::string& path) {
  std::error_code error;
  return std::filesystem::file_size(path, error) == 0 && !error;
}

// The header and the rows of `path` at steps <= `step` (none of an empty file), and the last
// kept row's wall time.
std::string rows_up_to(const std::string& path, std::int64_t step, double& wall_time) {
  std::string kept = std::string(kHeader) + "\n";
  if (is_empty_file(path)) return kept;
  read_metrics_file(path, [&](const MetricsRow& row, const std::string& line) {
    if (row.step > step) return;
    wall_time = std::max(wall_time, row.wall_time);
    kept += line + "\n";
  });
  return kept;
}

}  // namespace

std::optional<MetricsRow> parse_metrics_row(const std::string& line, const std::string& path) {
  const auto first = line.find(',');
  const auto second = first == std::string::npos ? first : line.find(',', first + 1);
  const auto third = second == std::string::npos ? second : line.find(',', second + 1);
  if (third == std::string::npos || third + 1 == line.size()) return std::nullopt;
  try {
    return MetricsRow{std::stoll(line.substr(0, first)),
                      std::stod(line.substr(first + 1, second - first - 1)),
                      line.substr(second + 1, third - second - 1), std::stod(line.substr(third + 1))};
  } catch (const std::logic_error&) {
    throw std::runtime_error("'" + path + "': malformed row '" + line + "'");
  }
}

void read_metrics_file(
    const std::string& path,
    const std::function<void(const MetricsRow& row, const std::string& line)>& on_row) {
  core::check_regular_file(path, "metrics file");
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read metrics file '" + path + "'");
  std::string line;
  if (!read_line(in, line, path) || line != kHeader) {
    throw std::runtime_error("'" + path + "' is not an mnrl metrics file (expected the header '" +
                             kHeader + "')");
  }
  while (read_line(in, line, path)) {
    if (const auto row = parse_metrics_row(line, path)) on_row(*row, line);
  }
}

void check_resumable_metrics_file(const std::string& path) {
  core::check_regular_file(path, "metrics file");
  if (!is_empty_file(path)) read_metrics_file(path, [](const MetricsRow&, const std::string&) {});
}

CsvMetrics::CsvMetrics(const std::string& path, std::optional<std::int64_t> resumed_at)
    : start_seconds_(now_seconds()) {
  if (resumed_at) {
    double wall_time = 0.0;
    core::write_file_atomically(path, rows_up_to(path, *resumed_at, wall_time));
    start_seconds_ -= wall_time;
    out_.emplace(path, /*truncate=*/false);
  } else {
    out_.emplace(path, /*truncate=*/true);
    out_->append(std::string(kHeader) + "\n");
  }
}

void CsvMetrics::scalar(std::int64_t step, const std::string& name, double value) {
  char numbers[3][48];
  std::snprintf(numbers[0], sizeof numbers[0], "%lld", static_cast<long long>(step));
  std::snprintf(numbers[1], sizeof numbers[1], "%.3f", now_seconds() - start_seconds_);
  std::snprintf(numbers[2], sizeof numbers[2], "%.9g", value);
  out_->append(std::string(numbers[0]) + ',' + numbers[1] + ',' + name + ',' + numbers[2] + '\n');
}

}  // namespace mnrl::experiments
