#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>

#include "experiments/metrics.h"

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

}  // namespace mnrl::experiments
