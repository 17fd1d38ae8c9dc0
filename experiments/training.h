#pragma once

#include "experiments/experiment_options.h"
#include "experiments/metrics.h"
#include "experiments/on_policy_training.h"

namespace mnrl::experiments {

// Trains with the loop options.algo needs: train_a3c for a3c, train_on_policy otherwise.
TrainingResult train(const ExperimentOptions& options, MetricsSink& metrics);

}  // namespace mnrl::experiments
