#include "experiments/training/training.h"

#include <string>

#include "distributed/communicator.h"
#include "experiments/training/apex_learner.h"
#include "experiments/training/impala_learner.h"
#include "experiments/training/learner_topology.h"
#include "experiments/training/parameter_server.h"
#include "experiments/training/replicas.h"
#include "experiments/training/worker_threads.h"

namespace mnrl::experiments {

void check_ranks_fit(const ExperimentOptions& options, const distributed::Communicator& world) {
  const int learners = options.distributed.learners;
  if (world.size() == 1 || !agents::has_actors(options.algorithm().topology()) ||
      world.size() >= 2 * learners) {
    return;
  }
  throw distributed::CommunicatorError("distributed.learners = " + std::to_string(learners) +
                                       " needs at least " + std::to_string(2 * learners) +
                                       " ranks (an actor for each learner); the job has " +
                                       std::to_string(world.size()));
}

namespace {

// The learners' communicator of an actors-and-learners job (every rank calls it): null with
// one learner, and on the actors.
std::unique_ptr<distributed::Communicator> split_learners(const ExperimentOptions& options,
                                                          distributed::Communicator& world) {
  check_ranks_fit(options, world);
  const int learners = options.distributed.learners;
  if (learners == 1) return nullptr;
  auto communicator = world.split(world.rank() < learners ? 0 : -1);
  if (communicator) communicator->set_stall_timeout(options.distributed.timeout);
  return communicator;
}

}  // namespace

std::unique_ptr<TrainingTopology> make_topology(const ExperimentOptions& options,
                                                MetricsSink& metrics,
                                                distributed::Communicator* communicator) {
  const agents::Topology topology = options.algorithm().topology();
  const bool one_process = !communicator || communicator->size() == 1;
  // In one process an actors-and-learner agent acts and learns in turn.
  if (topology == agents::Topology::replicas || (agents::has_actors(topology) && one_process)) {
    return std::make_unique<Replicas>(options, metrics, communicator);
  }
  if (one_process) return std::make_unique<WorkerThreads>(options, metrics);
  if (agents::has_actors(topology)) {
    auto learners = split_learners(options, *communicator);
    if (!layout_of(options, *communicator).learns(communicator->rank())) return nullptr;
    if (topology == agents::Topology::actors_send_trajectories) {
      return std::make_unique<ImpalaLearner>(options, metrics, *communicator, std::move(learners));
    }
    return std::make_unique<ApexLearner>(options, metrics, *communicator, std::move(learners));
  }
  if (communicator->rank() > 0) return nullptr;
  return std::make_unique<ParameterServer>(options, metrics, *communicator);
}

namespace {

// What a rank > 0 of a job runs; returns the global step its rank 0 last reported.
std::int64_t run_worker_rank(const ExperimentOptions& options,
                             distributed::Communicator& communicator,
                             const Checkpoint* resume_from) {
  switch (options.algorithm().topology()) {
    case agents::Topology::actors_send_trajectories:
      return run_impala_actor(options, communicator, resume_from);
    case agents::Topology::actors_send_transitions:
      return run_apex_actor(options, communicator, resume_from);
    default: {
      std::optional<std::int64_t> resumed_at;
      if (resume_from) resumed_at = resume_from->info().step;
      return run_parameter_server_worker(options, communicator, resumed_at);
    }
  }
}

}  // namespace

TrainingResult train(const ExperimentOptions& options, MetricsSink& metrics,
                     const CheckpointSettings* checkpoints,
                     distributed::Communicator* communicator) {
  if (const auto topology = make_topology(options, metrics, communicator)) {
    return run_training_loop(*topology, options, checkpoints);
  }
  const Checkpoint* resume_from =
      checkpoints && checkpoints->resume_from ? &*checkpoints->resume_from : nullptr;
  const TrainingClock clock;
  TrainingResult result;
  result.steps = run_worker_rank(options, *communicator, resume_from);
  result.seconds = clock.elapsed();
  return result;
}

}  // namespace mnrl::experiments
