#include "apps/learning_curve.h"

#include <cstdio>
#include <optional>
#include <set>
#include <sys/wait.h>

#include "core/text.h"
#include "experiments/metrics.h"

namespace mnrl::apps {

Curve read_curve(const std::filesystem::path& run_dir, const std::string& metric) {
  const auto path = run_dir / "metrics.csv";
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    throw CurveError("run '" + run_dir.string() + "': no metrics.csv (not a run directory?)");
  }
  Curve curve;
  std::set<std::string> names;
  try {
    experiments::read_metrics_file(path.string(), [&](const experiments::MetricsRow& row,
                                                      const std::string&) {
      if (row.name == metric) {
        curve.emplace_back(row.step, row.value);
      } else {
        names.insert(row.name);
      }
    });
  } catch (const std::runtime_error& e) {
    throw CurveError(e.what());
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

void run_gnuplot(const std::string& script) {
  const std::string command = "gnuplot '" + script + "' 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run gnuplot");
  std::string output;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
  const int status = pclose(pipe);
  if (!WIFEXITED(status) || WEXITSTATUS(status) == 127) {
    throw std::runtime_error("gnuplot is not installed (Debian: apt-get install gnuplot-nox; "
                             "scripts/setup.sh installs it)");
  }
  if (WEXITSTATUS(status) != 0) throw std::runtime_error("gnuplot failed: " + output);
}

}  // namespace mnrl::apps
