#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

#include "core/openblas.h"
#include "experiments/metrics/metrics.h"

namespace mnrl::experiments {

// Keeps, per metric name, how often it was reported, its last value and its largest one.
class RecordingMetrics final : public MetricsSink {
 public:
  void scalar(std::int64_t, const std::string& name, double value) override {
    const int seen = count[name]++;
    last[name] = value;
    best[name] = seen == 0 ? value : std::max(best[name], value);
  }
  std::map<std::string, int> count;
  std::map<std::string, double> last, best;
};

// Prints what a learning test measured, with the BLAS kernel it ran under, as one line that
// `ctest -V` logs keep (docs/BENCHMARKS.md's table of learning results is read from them).
inline void print_learning_result(const std::string& what, double value) {
  std::printf("[ RESULT   ] %s = %.2f (BLAS kernel %s)\n", what.c_str(), value,
              core::openblas_kernel().c_str());
  std::fflush(stdout);
}

}  // namespace mnrl::experiments
