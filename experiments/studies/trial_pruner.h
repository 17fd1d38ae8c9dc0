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
//
// asha (asynchronous successive halving, Li et al. 2020; Optuna's SuccessiveHalvingPruner): rungs
// at min_steps x reduction_factor^k steps; a trial's first evaluation at or past a rung is its
// value there, and it goes on only if that value is among the best 1/reduction_factor of every
// trial's at that rung so far (the best one while fewer have reached it).
struct PrunerOptions {
  std::string kind = "median";  // median | asha | none
  int startup_trials = 5;
  std::int64_t warmup_steps = 0;
  int reduction_factor = 3;
  std::int64_t min_steps =
      0;  // asha's first rung; 0: at the first evaluation (train.eval_interval)
};

// Whether `trial` should stop now, given every trial, for its reports past `judged_through`
// (the step of the latest report already judged; -1: the one before its latest): median judges
// the latest, asha every rung those reports reached.
bool should_prune(const PrunerOptions& options, const TrialRecord& trial,
                  const std::vector<TrialRecord>& trials, std::int64_t judged_through = -1);

}  // namespace mnrl::experiments
