#pragma once

#include <memory>

#include "experiments/config/experiment_options.h"
#include "experiments/metrics/metrics.h"
#include "experiments/training/training_loop.h"

namespace mnrl::distributed {
class Communicator;
}

namespace mnrl::experiments {

// Throws distributed::CommunicatorError where `world` has too few ranks for `options`'
// topology (TopologyKind::check_ranks; IMPALA and Ape-X: an actor for each of
// distributed.learners). The same on every rank: call it before anything is written.
void check_ranks_fit(const ExperimentOptions& options, const distributed::Communicator& world);

// The topology of `options`' algorithm for this process (see train()); null on the ranks that
// run their own loop (TopologyKind::run_rank: a parameter server's workers, IMPALA's and
// Ape-X's actors). Every rank of a job calls it.
std::unique_ptr<TrainingTopology> make_topology(const ExperimentOptions& options,
                                                MetricsSink& metrics,
                                                distributed::Communicator* communicator);

// Trains `options` with the one training loop (run_training_loop) over the topology its
// algorithm names (topology_registry.h): Replicas for "replicas", the kind's own for the others
// (topologies/); a rank without a topology runs the kind's run_rank(). With `checkpoints`,
// resumes and writes checkpoints. With a `communicator` of several ranks, every rank calls it;
// only rank 0 reports to `metrics`.
TrainingResult train(const ExperimentOptions& options, MetricsSink& metrics,
                     const CheckpointSettings* checkpoints = nullptr,
                     distributed::Communicator* communicator = nullptr);

}  // namespace mnrl::experiments
