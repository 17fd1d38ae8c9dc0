#include "experiments/metrics.h"

#include <chrono>
#include <iomanip>
#include <stdexcept>

namespace mnrl::experiments {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

CsvMetrics::CsvMetrics(const std::string& path)
    : out_(path, std::ios::out | std::ios::trunc), path_(path), start_seconds_(now_seconds()) {
  if (!out_) throw std::runtime_error("cannot write metrics file '" + path + "'");
  out_ << "step,wall_time,name,value\n" << std::setprecision(9);
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
