#pragma once

#include "experiments/experiment_options.h"
#include "experiments/metrics.h"
#include "experiments/single_learner_training.h"

namespace mnrl::experiments {

// Trains with the loop of the algorithm's topology (agents::Topology): train_single_learner for
// replicas; async workers as threads (train_a3c) in one process, or around a parameter server
// (train_a3c_parameter_server) in a job of several ranks.
// With `checkpoints`, resumes and writes checkpoints as train_single_learner describes.
// With a `communicator` of several ranks, every rank calls it (see train_single_learner).
TrainingResult train(const ExperimentOptions& options, MetricsSink& metrics,
                     const CheckpointSettings* checkpoints = nullptr,
                     distributed::Communicator* communicator = nullptr);

}  // namespace mnrl::experiments
