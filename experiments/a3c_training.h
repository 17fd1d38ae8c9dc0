#pragma once

#include "experiments/experiment_options.h"
#include "experiments/metrics.h"
#include "experiments/single_learner_training.h"

namespace mnrl::experiments {

// A3C: a3c.workers threads, each an A2C learner on its own envs (seeded apart) and its
// own copy of the model, all applying their updates to one shared model (agents::SharedModel).
// The calling thread evaluates a snapshot of the shared model on schedule and at the end.
// Episode statistics and update statistics of every worker go to `metrics` (serialized), at
// the global step count. Stops on core::stop_requested(); an error in one worker stops all and
// is rethrown here. Not deterministic across runs: workers interleave freely. With
// `checkpoints`, resumes and writes checkpoints as train_single_learner does; for a scheduled
// checkpoint the workers pause at their next step boundary while it is written.
TrainingResult train_a3c(const ExperimentOptions& options, MetricsSink& metrics,
                         const CheckpointSettings* checkpoints = nullptr);

}  // namespace mnrl::experiments
