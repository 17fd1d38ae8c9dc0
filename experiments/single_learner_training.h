#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

#include "experiments/best_checkpoint.h"
#include "experiments/evaluator.h"
#include "experiments/experiment_options.h"
#include "experiments/training_checkpoint.h"
#include "experiments/metrics.h"

namespace mnrl::distributed {
class Communicator;
}

namespace mnrl::experiments {

struct TrainingResult {
  std::int64_t steps = 0;
  double seconds = 0.0;
  EvaluationResult final_evaluation;
  bool interrupted = false;  // stopped by Ctrl-C / SIGTERM before the end
  // Stopped during the final evaluation: after the last step, whose checkpoint is written.
  bool stopped_in_final_evaluation = false;
  std::filesystem::path checkpoint;  // the last checkpoint written, if any
  std::optional<BestPolicy> best;  // the best evaluation's policy (BestCheckpoint), if kept
};

// The loop of one learner, on-policy (PPO, A2C) or off-policy (DQN): act on the training
// envs, step them, observe, update whenever the agent is ready, evaluate on schedule and at the
// end. With `checkpoints`, it resumes from checkpoints->resume_from if set, and writes
// checkpoints every checkpoint.interval steps and at the end. When core::stop_requested(), it
// stops at once (no final evaluation) and writes its checkpoint. Everything it measures goes to
// `metrics`; `seconds` and the SPS metric count this process only, `seconds` plus the earlier
// segments of a resumed run.
//
// With a `communicator` of several ranks, it is one rank of a data-parallel job (DataParallel):
// every rank calls it; the steps count all ranks' env steps; only rank 0 evaluates and reports
// to `metrics` (episodes and update statistics reduced over the ranks) and writes checkpoints.
TrainingResult train_single_learner(const ExperimentOptions& options, MetricsSink& metrics,
                                    const CheckpointSettings* checkpoints = nullptr,
                                    distributed::Communicator* communicator = nullptr);

}  // namespace mnrl::experiments
