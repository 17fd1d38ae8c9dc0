#include "experiments/training/training.h"

#include "distributed/communicator.h"
#include "experiments/training/parameter_server.h"
#include "experiments/training/replicas.h"
#include "experiments/training/worker_threads.h"

namespace mnrl::experiments {

TrainingResult train(const ExperimentOptions& options, MetricsSink& metrics,
                     const CheckpointSettings* checkpoints,
                     distributed::Communicator* communicator) {
  if (options.algorithm().topology() == agents::Topology::replicas) {
    Replicas replicas(options, metrics, communicator);
    return run_training_loop(replicas, options, checkpoints);
  }
  if (!communicator || communicator->size() == 1) {
    WorkerThreads workers(options, metrics);
    return run_training_loop(workers, options, checkpoints);
  }
  if (communicator->rank() == 0) {
    ParameterServer server(options, metrics, *communicator);
    return run_training_loop(server, options, checkpoints);
  }
  std::optional<std::int64_t> resumed_at;
  if (checkpoints && checkpoints->resume_from) resumed_at = checkpoints->resume_from->info().step;
  const TrainingClock clock;
  TrainingResult result;
  result.steps = run_parameter_server_worker(options, *communicator, resumed_at);
  result.seconds = clock.elapsed();
  return result;
}

}  // namespace mnrl::experiments
