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

}  // namespace

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
    const auto comma = line.find(',');
    const auto second = line.find(',', comma + 1);
    if (comma == std::string::npos || second == std::string::npos) continue;  // a torn last row
    try {
      if (std::stoll(line.substr(0, comma)) > step) continue;
      wall_time = std::max(wall_time, std::stod(line.substr(comma + 1, second - comma - 1)));
    } catch (const std::logic_error&) {
      throw std::runtime_error("'" + path + "': malformed row '" + line + "'");
    }
    kept += line + "\n";
  }
  return kept;
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
