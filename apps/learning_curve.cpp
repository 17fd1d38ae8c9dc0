#include "apps/learning_curve.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/text.h"
#include "experiments/metrics/metrics.h"

namespace mnrl::apps {

Curve read_curve(const std::filesystem::path& run_dir, const std::string& metric) {
  const auto path = run_dir / "metrics.csv";
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    throw CurveError("run '" + run_dir.string() + "': no metrics.csv (not a run directory?)");
  }
  Curve curve;
  std::set<std::string> names;
  std::size_t non_finite = 0;  // nan or inf values of the metric, which cannot be drawn
  try {
    experiments::read_metrics_file(path.string(), [&](const experiments::MetricsRow& row,
                                                      const std::string&) {
      if (row.name == metric) {
        if (std::isfinite(row.value)) curve.emplace_back(row.step, row.value);
        non_finite += !std::isfinite(row.value);
      } else {
        names.insert(row.name);
      }
    });
  } catch (const std::runtime_error& e) {
    throw CurveError(e.what());
  }
  if (curve.empty() && non_finite > 0) {
    throw CurveError("run '" + run_dir.string() + "': every value of '" + metric +
                     "' in metrics.csv is nan or infinite");
  }
  if (curve.empty()) {
    const std::vector<std::string> known(names.begin(), names.end());
    throw CurveError("run '" + run_dir.string() + "' has no '" + metric + "' in metrics.csv" +
                     core::did_you_mean(metric, known) +
                     (known.empty() ? " (it has no metrics yet)"
                                    : " (it has: " + core::join(known) + ")"));
  }
  return curve;
}

Curve smoothed(const Curve& curve, int window) {
  Curve out;
  out.reserve(curve.size());
  double sum = 0.0;
  for (std::size_t i = 0; i < curve.size(); ++i) {
    sum += curve[i].second;
    if (i >= static_cast<std::size_t>(window)) sum -= curve[i - static_cast<std::size_t>(window)].second;
    const std::size_t count = std::min(i + 1, static_cast<std::size_t>(window));
    out.emplace_back(curve[i].first, sum / static_cast<double>(count));
  }
  return out;
}

}  // namespace mnrl::apps
