#pragma once

#include <functional>
#include <memory>

#include "agents/a3c/a3c_options.h"
#include "agents/a3c/shared_rmsprop.h"
#include "agents/agent.h"
#include "agents/agent_setup.h"

namespace mnrl::agents {

// The pieces A3C's training topologies (topologies/a3c) build from: one shared model, the
// workers that learn into it, and players that evaluate it.

// The model every A3C worker learns into, initialized as a worker's network would be, from
// LibTorch's generator as it stands.
std::shared_ptr<SharedModel> make_a3c_shared_model(const A3cOptions& a3c, const AgentSetup& setup);

// A worker: an A2C agent over a local copy of `shared` (copied in now) whose optimizer applies
// its gradients to `shared` (SharedRmsprop). Seeds nothing.
std::unique_ptr<Agent> make_a3c_worker(const A3cOptions& a3c, const AgentSetup& setup,
                                       std::shared_ptr<SharedModel> shared);

// A worker whose updates go through `make_optimizer(its local flat parameters)` (which may also
// set the parameters): across processes, a parameter server's client.
using WorkerOptimizerFactory =
    std::function<std::unique_ptr<torch::optim::Optimizer>(const at::Tensor& local_parameters)>;
std::unique_ptr<Agent> make_a3c_worker_with(const A3cOptions& a3c, const AgentSetup& setup,
                                            const WorkerOptimizerFactory& make_optimizer);

// A consistent snapshot of `shared`'s parameters (its statistics zero), taken now.
std::shared_ptr<SharedModel> snapshot_of(SharedModel& shared);

// An agent that plays a consistent snapshot of `shared` (taken now), for evaluation: a worker
// over a model of its own, so the running workers' updates do not reach it.
std::unique_ptr<Agent> make_a3c_player(const A3cOptions& a3c, const AgentSetup& setup,
                                       SharedModel& shared);

}  // namespace mnrl::agents
