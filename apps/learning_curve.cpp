#include "apps/learning_curve.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <optional>
#include <set>

#include "core/stop_signal.h"
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

void run_gnuplot(const std::string& script) {
  int output[2];
  if (pipe2(output, O_CLOEXEC) != 0) throw std::runtime_error("cannot run gnuplot: no pipe");
  const pid_t child = fork();
  if (child < 0) throw std::runtime_error("cannot run gnuplot: fork failed");
  if (child == 0) {
    dup2(output[1], STDOUT_FILENO);
    dup2(output[1], STDERR_FILENO);
    execlp("gnuplot", "gnuplot", script.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(output[1]);
  std::string text;
  char buffer[512];
  for (;;) {
    const ssize_t count = read(output[0], buffer, sizeof buffer);
    if (count > 0) text.append(buffer, static_cast<std::size_t>(count));
    if (count == 0 || (count < 0 && errno != EINTR)) break;
    // A stop request (core::install_stop_handlers) interrupts the read: gnuplot goes with us.
    if (core::stop_requested()) {
      kill(child, SIGKILL);
      break;
    }
  }
  close(output[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (core::stop_requested()) throw std::runtime_error("stopped");
  if (!WIFEXITED(status) || WEXITSTATUS(status) == 127) {
    throw std::runtime_error("gnuplot is not installed (Debian: apt-get install gnuplot-nox; "
                             "scripts/setup.sh installs it)");
  }
  if (WEXITSTATUS(status) != 0) throw std::runtime_error("gnuplot failed: " + text);
}

}  // namespace mnrl::apps
