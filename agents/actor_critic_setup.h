#pragma once

#include <torch/optim/adam.h>

#include <cstdint>
#include <memory>
#include <string>

#include "agents/actor_critic_agent.h"
#include "agents/agent_setup.h"
#include "agents/network_options.h"
#include "envs/space.h"
#include "replay/rollout_buffer.h"

namespace mnrl::agents {

// The parts PPO, A2C and A3C build their agents from.

// The actor-critic the setup's network options describe for its env (a categorical head for
// Discrete actions, a diagonal Gaussian for Box), initialized from LibTorch's generator, on
// the setup's device (in its precision).
nn::ActorCritic make_actor_critic(const AgentSetup& setup, bool use_sde);

// A rollout of `n_steps` steps of `num_envs` envs of `spec`.
replay::RolloutBuffer make_rollout_buffer(std::int64_t n_steps, std::int64_t num_envs,
                                          const envs::EnvSpec& spec);

// Adam over the flat parameters: LibTorch's on the CPU (the rounding the learning tests hold
// under), nn::CapturableAdam on a GPU (which gradient steps run as CUDA graphs need).
std::unique_ptr<torch::optim::Optimizer> make_actor_critic_adam(
    const nn::FlatParameters& parameters, const torch::optim::AdamOptions& options,
    const std::string& device);

}  // namespace mnrl::agents
