#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "experiments/studies/search_space.h"
#include "experiments/studies/trial_journal.h"

namespace mnrl::experiments {

// The tree-structured Parzen estimator (Bergstra et al. 2011; Optuna's TPESampler with its
// defaults, each parameter on its own): after `startup_trials` random draws, the ended trials
// split into the best (the top ceil(10%) by objective, at most 25; pruned trials rank below every
// complete one, by their best evaluation) and the rest; each parameter draws 24 candidates from
// a Parzen estimator of the best ones and keeps the one most likely under it relative to the
// estimator of the rest.
struct TpeOptions {
  int startup_trials = 10;
  int candidates = 24;
};

// The parameters of a new trial given the ones before it (`trials`, any state; only complete
// and pruned ones inform it).
std::vector<ParameterValue> tpe_draw(const std::vector<Parameter>& space,
                                     const std::vector<TrialRecord>& trials,
                                     const TpeOptions& options, std::mt19937_64& random);

}  // namespace mnrl::experiments
