#pragma once

#include <cstdint>

#include "experiments/evaluator.h"
#include "experiments/experiment_options.h"
#include "experiments/metrics.h"

namespace mnrl::experiments {

struct TrainingResult {
  std::int64_t steps = 0;
  double seconds = 0.0;
  EvaluationResult final_evaluation;
  bool interrupted = false;  // stopped by Ctrl-C / SIGTERM before total_steps
};

// The loop of one learner, on-policy (PPO, A2C) or off-policy (DQN): act on the training
// envs, step them, observe, update whenever the agent is ready, evaluate on schedule and at the
// end. Stops early, after a final evaluation, when
// core::stop_requested(). Everything it measures goes to `metrics`.
TrainingResult train_single_learner(const ExperimentOptions& options, MetricsSink& metrics);

}  // namespace mnrl::experiments
