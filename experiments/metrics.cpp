#include "experiments/metrics.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <stdexcept>

#include "core/run_directory.h"

namespace mnrl::experiments {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

constexpr const char* kHeader = "step,wall_time,name,value";

// The header and the rows of `path` at steps <= `step`, and the last kept row's wall time.
std::string rows_up_to(const std::string& path, std::int64_t step, double& wall_time) {
  std::ifstream in(path);
  std::string line, kept;
  if (!std::getline(in, line) || line != kHeader) {
    throw std::runtime_error("'" + path + "' is not an mnrl metrics file (expected the header '" +
                             kHeader + "')");
  }
  kept = line + "\n";
  while (std::getline(in, line)) {
    const auto row = parse_metrics_row(line, path);
    if (!row || row->step > step) continue;
    wall_time = std::max(wall_time, row->wall_time);
    kept += line + "\n";
  }
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

CsvMetrics::CsvMetrics(const std::string& path, std::optional<std::int64_t> resumed_at)
    : path_(path), start_seconds_(now_seconds()) {
  if (resumed_at) {
    double wall_time = 0.0;
    core::write_file_atomically(path, rows_up_to(path, *resumed_at, wall_time));
    start_seconds_ -= wall_time;
    out_.open(path, std::ios::out | std::ios::app);
  } else {
    out_.open(path, std::ios::out | std::ios::trunc);
    out_ << kHeader << '\n';
  }
  if (!out_) throw std::runtime_error("cannot write metrics file '" + path + "'");
  out_ << std::setprecision(9);
}

void CsvMetrics::scalar(std::int64_t step, const std::string& name, double value) {
  out_ << step << ',' << std::fixed << std::setprecision(3) << now_seconds() - start_seconds_
       << std::defaultfloat << std::setprecision(9) << ',' << name << ',' << value << '\n';
}

void CsvMetrics::flush() {
  out_.flush();
  if (!out_) throw std::runtime_error("writing metrics file '" + path_ + "' failed");
}

}  // namespace mnrl::experiments
