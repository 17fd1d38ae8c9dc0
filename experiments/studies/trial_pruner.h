#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "experiments/studies/trial_journal.h"

namespace mnrl::experiments {

// Stops bad trials early from their intermediate evaluations (higher is better).
//
// median (Optuna's MedianPruner): once `startup_trials` trials have ended complete, a trial is
// pruned at an evaluation past `warmup_steps` where the best value it has reported so far is
// below the median of what the complete trials had reported by that step.
struct PrunerOptions {
  std::string kind = "median";  // median | none
  int startup_trials = 5;
  std::int64_t warmup_steps = 0;
};

// Whether `trial`, whose latest report is its last, should stop now, given every trial.
bool should_prune(const PrunerOptions& options, const TrialRecord& trial,
                  const std::vector<TrialRecord>& trials);

}  // namespace mnrl::experiments
