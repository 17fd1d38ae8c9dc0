#pragma once

#include <string>

#include "experiments/metrics/metrics.h"

namespace mnrl::experiments {

// The episodes a rank has seen end since it last reported to the rank that logs them (A3C's
// workers, IMPALA's actors): counted from what its loop reports, sent as sums.
class EpisodeTally final : public MetricsSink {
 public:
  void scalar(std::int64_t, const std::string& name, double value) override {
    if (name == "charts/episodic_return") {
      episodes += 1;
      return_sum += value;
    } else if (name == "charts/episodic_length") {
      length_sum += value;
    }
  }
  double steps = 0, episodes = 0, return_sum = 0, length_sum = 0;
};

// Logs a tally's mean episode at `step` (nothing when no episode ended).
inline void report_tally(MetricsSink& metrics, std::int64_t step, double episodes,
                         double return_sum, double length_sum) {
  if (episodes <= 0) return;
  metrics.scalar(step, "charts/episodic_return", return_sum / episodes);
  metrics.scalar(step, "charts/episodic_length", length_sum / episodes);
}

}  // namespace mnrl::experiments
