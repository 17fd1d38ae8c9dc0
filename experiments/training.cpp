#include "experiments/training.h"

#include "distributed/communicator.h"
#include "experiments/a3c_parameter_server.h"
#include "experiments/a3c_training.h"
#include "experiments/checkpoint.h"

namespace mnrl::experiments {

TrainingResult train(const ExperimentOptions& options, MetricsSink& metrics,
                     const CheckpointSettings* checkpoints,
                     distributed::Communicator* communicator) {
  const bool several_ranks = communicator && communicator->size() > 1;
  if (options.algorithm().topology() == agents::Topology::replicas) {
    return train_single_learner(options, metrics, checkpoints, communicator);
  }
  if (!several_ranks) return train_a3c(options, metrics, checkpoints);
  if (checkpoints && checkpoints->resume_from) {
    throw CheckpointError("A3C across processes (a parameter server) cannot resume a run; "
                          "resume it as one process, without mpirun");
  }
  return train_a3c_parameter_server(options, metrics, *communicator);
}

}  // namespace mnrl::experiments
