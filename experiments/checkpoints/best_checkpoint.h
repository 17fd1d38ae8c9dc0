#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

#include "experiments/evaluation/evaluator.h"
#include "experiments/config/experiment_options.h"
#include "experiments/checkpoints/training_checkpoint.h"

namespace mnrl::experiments {

// The best evaluation of a run and where its policy is kept.
struct BestPolicy {
  std::filesystem::path checkpoint;
  std::int64_t step = 0;
  double mean_return = 0.0;
};

// Keeps RUN_DIR/checkpoints/best (SB3's EvalCallback best model): the policy whose evaluation
// had the highest mean return so far, for `mnrl eval RUN_DIR/checkpoints/best`. A policy's last
// iterate need not be its best: PPO's greedy MountainCarContinuous policy, for one, flips
// between reaching the goal and not until the end (docs/BENCHMARKS.md).
//
// A resumed run goes on from the best its earlier segments recorded in that checkpoint's
// manifest (eval_mean_return). Inactive without a run directory or with
// checkpoint.save_best: false.
class BestCheckpoint {
 public:
  BestCheckpoint(const CheckpointSettings* checkpoints, const ExperimentOptions& options);

  // Writes the policy of `parts` (save_policy_checkpoint) when `evaluation` beats the best.
  void offer(std::int64_t step, const EvaluationResult& evaluation, const TrainingParts& parts);

  // Once a best checkpoint exists (written, or found on resume).
  const std::optional<BestPolicy>& best() const { return best_; }

 private:
  const CheckpointSettings* checkpoints_;
  const ExperimentOptions& options_;
  std::optional<BestPolicy> best_;
};

}  // namespace mnrl::experiments
