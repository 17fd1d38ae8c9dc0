#pragma once

#include <memory>

#include "experiments/config/experiment_options.h"
#include "experiments/metrics/metrics.h"
#include "experiments/training/training_loop.h"

namespace mnrl::distributed {
class Communicator;
}

namespace mnrl::experiments {

// Throws distributed::CommunicatorError where `world` has too few ranks for `options` (IMPALA
// and Ape-X: an actor for each of distributed.learners). The same on every rank: call it before
// anything is written.
void check_ranks_fit(const ExperimentOptions& options, const distributed::Communicator& world);

// The topology of `options`' algorithm for this process (see train()); null on the worker
// ranks of a parameter server and on the actor ranks of IMPALA and Ape-X, which run the
// workers' and actors' own loops instead. Every rank of a job calls it.
std::unique_ptr<TrainingTopology> make_topology(const ExperimentOptions& options,
                                                MetricsSink& metrics,
                                                distributed::Communicator* communicator);

// Trains `options` with the one training loop (run_training_loop) over the topology of its
// algorithm (agents::Topology): Replicas for replicas; for asynchronous workers, WorkerThreads
// in one process or a ParameterServer on rank 0 of a job of several ranks (the other ranks its
// workers); for actors and learners, the learners' ImpalaLearner or ApexLearner and the other
// ranks' actors. With `checkpoints`, resumes and writes checkpoints. With a `communicator` of
// several ranks, every rank calls it; only rank 0 reports to `metrics`.
TrainingResult train(const ExperimentOptions& options, MetricsSink& metrics,
                     const CheckpointSettings* checkpoints = nullptr,
                     distributed::Communicator* communicator = nullptr);

}  // namespace mnrl::experiments
