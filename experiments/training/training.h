#pragma once

#include <memory>

#include "experiments/config/experiment_options.h"
#include "experiments/metrics/metrics.h"
#include "experiments/training/training_loop.h"

namespace mnrl::distributed {
class Communicator;
}

namespace mnrl::experiments {

// The topology of `options`' algorithm for this process (see train()); null on the worker
// ranks of a parameter server, which run_parameter_server_worker() runs instead.
std::unique_ptr<TrainingTopology> make_topology(const ExperimentOptions& options,
                                                MetricsSink& metrics,
                                                distributed::Communicator* communicator);

// Trains `options` with the one training loop (run_training_loop) over the topology of its
// algorithm (agents::Topology): Replicas for replicas; for asynchronous workers, WorkerThreads
// in one process or a ParameterServer on rank 0 of a job of several ranks (the other ranks its
// workers). With `checkpoints`, resumes and writes checkpoints. With a `communicator` of
// several ranks, every rank calls it; only rank 0 reports to `metrics`.
TrainingResult train(const ExperimentOptions& options, MetricsSink& metrics,
                     const CheckpointSettings* checkpoints = nullptr,
                     distributed::Communicator* communicator = nullptr);

}  // namespace mnrl::experiments
