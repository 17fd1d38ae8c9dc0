#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

#include "experiments/checkpoints/best_checkpoint.h"
#include "experiments/evaluation/evaluator.h"
#include "experiments/config/experiment_options.h"
#include "experiments/metrics/metrics.h"
#include "experiments/training/topology.h"
#include "experiments/checkpoints/training_checkpoint.h"

namespace mnrl::experiments {

struct TrainingResult {
  std::int64_t steps = 0;
  double seconds = 0.0;
  EvaluationResult final_evaluation;
  bool interrupted = false;  // stopped by Ctrl-C / SIGTERM before the end
  // Stopped during the final evaluation: after the last step, whose checkpoint is written.
  bool stopped_in_final_evaluation = false;
  // Stopped at an evaluation that reached train.stop_at_return: its step and mean return.
  struct EarlyStop {
    std::int64_t step = 0;
    double mean_return = 0.0;
  };
  std::optional<EarlyStop> stopped_early;  // then final_evaluation is that evaluation
  std::filesystem::path checkpoint;  // the last checkpoint written, if any
  std::optional<BestPolicy> best;  // the best evaluation's policy (BestCheckpoint), if kept
};

// The one training loop, for every topology: resumes from checkpoints->resume_from if set (or
// starts the episodes), trains to train.total_steps, evaluates every train.eval_interval steps
// and at the end (keeping the best policy, BestCheckpoint), writes a checkpoint every
// checkpoint.interval steps and a last one when it ends or stops. An evaluation whose mean
// return reaches train.stop_at_return ends training there, as the end of the budget does (the
// last checkpoint, and that evaluation as the final one). When the topology stops
// (core::stop_requested()), it writes its checkpoint and skips the final evaluation; the
// checkpoint comes before the final evaluation, so a stop during it loses nothing. `seconds`
// counts this process plus the earlier segments of a resumed run. Every rank of a job runs it;
// only the leader evaluates and keeps the best policy.
TrainingResult run_training_loop(TrainingTopology& topology, const ExperimentOptions& options,
                                 const CheckpointSettings* checkpoints);

}  // namespace mnrl::experiments
