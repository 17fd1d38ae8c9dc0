#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mnrl::apps {

// A run directory or metric that cannot be plotted; the message names which and why.
class CurveError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// (step, value) points of one metric of one run, in file order.
using Curve = std::vector<std::pair<std::int64_t, double>>;

// The rows of `metric` in run_dir/metrics.csv. Throws CurveError when the file is missing or
// the metric never appears (naming the metrics it has).
Curve read_curve(const std::filesystem::path& run_dir, const std::string& metric);

// Trailing moving average over `window` points (fewer at the start).
Curve smoothed(const Curve& curve, int window);

}  // namespace mnrl::apps
