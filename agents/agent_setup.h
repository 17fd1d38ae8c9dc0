#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "agents/agent.h"
#include "agents/network_options.h"
#include "core/config.h"
#include "envs/env_options.h"
#include "envs/space.h"

namespace mnrl::nn {
class ActorCritic;
class FlatParameters;
class QNetwork;
}  // namespace mnrl::nn

namespace torch::optim {
class Optimizer;
}

namespace mnrl::agents {

class ExternalGradientSteps;  // agents/external_gradient_steps.h
class ExternalTdSteps;        // agents/dqn/external_td_steps.h
class ReturnDistribution;     // agents/dqn/return_distribution.h

// What an algorithm's factory reads besides its own section.
// train.cuda_graphs, for an agent on a GPU: whether its gradient steps run as CUDA graphs.
enum class CudaGraphs {
  off,
  where_possible,  // auto: eagerly where they cannot (said once)
  required,        // on: an error where they cannot
};

// Whether an agent runs its gradient steps as CUDA graphs under `mode`: never on the CPU or
// under off; elsewhere where this LibTorch has CUDA and the agent has no reason they cannot
// (`why_not`, or nullptr). Where they cannot, auto says why once on stderr (eager steps
// follow), and on throws std::runtime_error saying why.
bool cuda_graphs_chosen(CudaGraphs mode, bool on_cpu, const char* why_not);
// The why_not of an agent with a gradient hook (data-parallel training): a capture cannot
// hold the all-reduce.
inline constexpr const char* kGradientsAveragedBetween =
    "gradients are averaged across ranks between backward and the optimizer step";

struct AgentSetup {
  const envs::EnvSpec& spec;
  const NetworkOptions& network;
  std::int64_t num_envs = 1;     // envs the agent steps (each worker's, for async workers)
  std::int64_t total_steps = 0;  // the run's budget (schedules decay over it)
  std::uint64_t seed = 0;        // the experiment's seed: derive streams (core/seed_streams.h)
  // What data-parallel training hooks into the update, given the agent's flat parameters (one
  // buffer per agent); empty in a single process.
  std::function<GradientRangeHook(nn::FlatParameters&)> gradient_hook;
  // Where an actor-critic's gradient steps may run on parameters held elsewhere (pipeline
  // stages across ranks, topologies/pipeline/): given its model and optimizer, the steps it
  // hands its gradient steps over to, or null to step itself (hand_over_gradient_steps);
  // empty in any other run.
  std::function<std::shared_ptr<ExternalGradientSteps>(nn::ActorCritic&, torch::optim::Optimizer&)>
      external_gradient_steps;
  // The same for the DQN family: given the online and target networks, the online's optimizer
  // and the return distribution whose loss they learn (Dqn::hand_over_td_steps).
  std::function<std::shared_ptr<ExternalTdSteps>(nn::QNetwork& online, nn::QNetwork& target,
                                                 torch::optim::Optimizer&,
                                                 const ReturnDistribution&)>
      external_td_steps;
  // Where the networks live, resolved from train.device: "cpu" or "cuda:N" (algorithms whose
  // takes_device() is false always get "cpu").
  std::string device = "cpu";
  CudaGraphs cuda_graphs = CudaGraphs::off;  // off on the CPU
  bool bf16_autocast = false;                // train.precision: bf16 (on a GPU that has it)

  // A hook over every gradient in `parameters`.
  GradientHook hook_for(nn::FlatParameters& parameters) const;
  GradientRangeHook range_hook_for(nn::FlatParameters& parameters) const {
    return gradient_hook ? gradient_hook(parameters) : GradientRangeHook();
  }
};

// What an algorithm's config checks see: the env it will train on, and the document to locate
// errors in (document.error_at("ppo.batch_size", ...)).
struct AgentCheck {
  const core::ConfigDocument& document;
  const envs::EnvOptions& env;
  const envs::EnvSpec& spec;
  const NetworkOptions& network;
};

}  // namespace mnrl::agents
