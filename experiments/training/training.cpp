#include "experiments/training/training.h"

#include "experiments/training/topology_registry.h"

namespace mnrl::experiments {

void check_ranks_fit(const ExperimentOptions& options, const distributed::Communicator& world) {
  topology_kind(options).check_ranks(options, world);
}

std::unique_ptr<TrainingTopology> make_topology(const ExperimentOptions& options,
                                                MetricsSink& metrics,
                                                distributed::Communicator* communicator) {
  return topology_kind(options).make(options, metrics, communicator);
}

TrainingResult train(const ExperimentOptions& options, MetricsSink& metrics,
                     const CheckpointSettings* checkpoints,
                     distributed::Communicator* communicator) {
  const TopologyKind& kind = topology_kind(options);
  if (const auto topology = kind.make(options, metrics, communicator)) {
    return run_training_loop(*topology, options, checkpoints);
  }
  const Checkpoint* resume_from =
      checkpoints && checkpoints->resume_from ? &*checkpoints->resume_from : nullptr;
  const TrainingClock clock;
  TrainingResult result;
  result.steps = kind.run_rank(options, *communicator, resume_from);
  result.seconds = clock.elapsed();
  return result;
}

}  // namespace mnrl::experiments
