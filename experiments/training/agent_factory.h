#pragma once

#include <functional>
#include <memory>

#include "agents/agent.h"
#include "agents/agent_setup.h"
#include "envs/space.h"
#include "experiments/config/experiment_options.h"

namespace mnrl::distributed {
class Communicator;
class GradientSynchronizer;
}  // namespace mnrl::distributed

namespace mnrl::experiments {

// Seeds LibTorch's generator from options.seed, as make_agent() does before it builds the
// networks: for a topology that builds networks of its own (A3C's shared model).
void seed_initial_weights(std::int64_t seed);

// Builds the agent the config asks for, with its network, optimizer and rollout buffer, and
// seeds LibTorch's generator from options.seed. The only place that turns Options into
// torch objects; the training loop itself stays torch-free. `customize` changes the setup the
// algorithm's factory gets (a topology's hooks).
std::unique_ptr<agents::Agent> make_agent(
    const ExperimentOptions& options, const envs::EnvSpec& spec,
    const std::function<void(agents::AgentSetup&)>& customize = {});

// One rank's agent in a data-parallel job, and what keeps its parameters equal to the other
// ranks': its update() averages every gradient over the ranks (after backward, before
// clipping), so every rank applies the same step.
struct ReplicatedAgent {
  std::unique_ptr<agents::Agent> agent;
  std::unique_ptr<distributed::GradientSynchronizer> synchronizer;

  ReplicatedAgent();
  ReplicatedAgent(ReplicatedAgent&&) noexcept;
  ReplicatedAgent& operator=(ReplicatedAgent&&) noexcept;
  ~ReplicatedAgent();
};

// make_agent() with its gradients averaged over `communicator`'s ranks in buckets of
// options.distributed.bucket_mb. Does not broadcast the parameters: the caller does, once
// every rank has built its agent (and again after loading a checkpoint).
ReplicatedAgent make_replicated_agent(
    const ExperimentOptions& options, const envs::EnvSpec& spec,
    distributed::Communicator& communicator,
    const std::function<void(agents::AgentSetup&)>& customize = {});

// A learner's agent in an actors-and-learners job: make_replicated_agent() over the learners'
// communicator with several learners, make_agent() alone with one (null `learners`).
ReplicatedAgent make_learner_agent(const ExperimentOptions& options, const envs::EnvSpec& spec,
                                   distributed::Communicator* learners);

// What the registered algorithms' factories read from `options` for an agent on `spec`, on the
// device train.device resolves to for the rank of local rank `local_rank` (train_device.h).
agents::AgentSetup agent_setup(const ExperimentOptions& options, const envs::EnvSpec& spec,
                               int local_rank = 0);

// train.threads: the threads of the hand-written passes (nn/compute_threads.h), at most one per
// CPU of this machine (a config may come from a larger one) and at most two, the most pieces a
// step splits into. LibTorch and OpenBLAS (which Debian's LibTorch calls for matrix products
// and which otherwise starts one thread per core on its own) keep one thread each: their
// threads made DQN CartPole 3.2x slower (small products) and PPO Pendulum's autograd path no
// faster (docs/BENCHMARKS.md). Also keeps freed memory for reuse (core/memory_reuse.h).
void set_compute_threads(int threads);

}  // namespace mnrl::experiments
