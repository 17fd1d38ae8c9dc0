#pragma once

#include "experiments/experiment_options.h"
#include "experiments/metrics.h"
#include "experiments/single_learner_training.h"

namespace mnrl::experiments {

// Trains with the loop options.algo needs: train_a3c for a3c, train_single_learner otherwise.
// With `checkpoints`, resumes and writes checkpoints as train_single_learner describes.
// With a `communicator` of several ranks, every rank calls it (see train_single_learner).
TrainingResult train(const ExperimentOptions& options, MetricsSink& metrics,
                     const CheckpointSettings* checkpoints = nullptr,
                     distributed::Communicator* communicator = nullptr);

}  // namespace mnrl::experiments
