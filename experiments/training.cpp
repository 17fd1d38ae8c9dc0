#include "experiments/training.h"

#include "experiments/a3c_training.h"

namespace mnrl::experiments {

TrainingResult train(const ExperimentOptions& options, MetricsSink& metrics,
                     const CheckpointSettings* checkpoints,
                     distributed::Communicator* communicator) {
  return options.algo == "a3c" ? train_a3c(options, metrics, checkpoints)
                               : train_single_learner(options, metrics, checkpoints, communicator);
}

}  // namespace mnrl::experiments
