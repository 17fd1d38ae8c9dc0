#include "experiments/training/training.h"

#include "distributed/communicator.h"
#include "experiments/training/actors_learners.h"
#include "experiments/training/parameter_server.h"
#include "experiments/training/replicas.h"
#include "experiments/training/worker_threads.h"

namespace mnrl::experiments {

std::unique_ptr<TrainingTopology> make_topology(const ExperimentOptions& options,
                                                MetricsSink& metrics,
                                                distributed::Communicator* communicator) {
  const agents::Topology topology = options.algorithm().topology();
  const bool one_process = !communicator || communicator->size() == 1;
  // In one process an actors-and-learners agent acts and learns in turn.
  if (topology == agents::Topology::replicas ||
      (topology == agents::Topology::actors_learners && one_process)) {
    return std::make_unique<Replicas>(options, metrics, communicator);
  }
  if (one_process) return std::make_unique<WorkerThreads>(options, metrics);
  if (communicator->rank() > 0) return nullptr;
  if (topology == agents::Topology::actors_learners) {
    return std::make_unique<ImpalaLearner>(options, metrics, *communicator);
  }
  return std::make_unique<ParameterServer>(options, metrics, *communicator);
}

TrainingResult train(const ExperimentOptions& options, MetricsSink& metrics,
                     const CheckpointSettings* checkpoints,
                     distributed::Communicator* communicator) {
  if (const auto topology = make_topology(options, metrics, communicator)) {
    return run_training_loop(*topology, options, checkpoints);
  }
  std::optional<std::int64_t> resumed_at;
  if (checkpoints && checkpoints->resume_from) resumed_at = checkpoints->resume_from->info().step;
  const TrainingClock clock;
  TrainingResult result;
  result.steps = options.algorithm().topology() == agents::Topology::actors_learners
                     ? run_impala_actor(options, *communicator, resumed_at)
                     : run_parameter_server_worker(options, *communicator, resumed_at);
  result.seconds = clock.elapsed();
  return result;
}

}  // namespace mnrl::experiments
