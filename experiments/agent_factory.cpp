#include "experiments/agent_factory.h"

#include <algorithm>
#include <functional>
#include <thread>

#include <ATen/Parallel.h>
#include <ATen/ops/empty_like.h>
#include <torch/optim/adam.h>
#include <torch/optim/rmsprop.h>
#include <torch/utils.h>

#include "agents/a2c/a2c.h"
#include "agents/dqn/dqn.h"
#include "agents/ppo/ppo.h"
#include "core/openblas.h"
#include "core/rng.h"
#include "distributed/gradient_synchronizer.h"
#include "experiments/seed_streams.h"
#include "nn/fused_adam.h"

namespace mnrl::experiments {

namespace {

nn::ActorCritic make_actor_critic(const NetworkOptions& network, const envs::EnvSpec& spec,
                                  bool use_sde) {
  const std::int64_t observation_size = envs::flat_size(spec.observation_space);
  const bool continuous = !envs::is_discrete(spec.action_space);
  const std::int64_t action_size = continuous
                                       ? envs::flat_size(spec.action_space)
                                       : std::get<envs::Discrete>(spec.action_space).n;
  return nn::ActorCritic(nn::ActorCriticOptions(observation_size, action_size)
                             .hidden_sizes(network.hidden_sizes)
                             .activation(nn::activation_from_name(network.activation))
                             .shared_trunk(network.shared_trunk)
                             .orthogonal_init(network.orthogonal_init)
                             .continuous(continuous)
                             .log_std_init(network.log_std_init)
                             .squash(continuous && network.squash_output)
                             .use_sde(use_sde)
                             .sde(nn::StateDependentNoiseOptions()
                                      .full_std(network.full_std)
                                      .use_expln(network.use_expln)
                                      .learn_features(network.learn_features)));
}

// Floats per action in a rollout buffer: the index of a Discrete action, or the Box values.
std::int64_t stored_action_size(const envs::EnvSpec& spec) {
  return envs::is_discrete(spec.action_space) ? 1 : envs::flat_size(spec.action_space);
}

agents::ActionBounds action_bounds(const envs::EnvSpec& spec) {
  const auto* box = std::get_if<envs::Box>(&spec.action_space);
  return box ? agents::ActionBounds{box->low, box->high} : agents::ActionBounds{};
}

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const ExperimentOptions& options,
                                                        const nn::FlatParameters& parameters) {
  const std::vector<at::Tensor> values{parameters.values()};
  if (options.algo == "a2c" && options.a2c.optimizer == "rmsprop") {
    return std::make_unique<torch::optim::RMSprop>(
        values, torch::optim::RMSpropOptions(options.a2c.learning_rate)
                    .alpha(options.a2c.rms_prop_alpha)
                    .eps(options.a2c.optimizer_eps));
  }
  // torch::optim::Adam, not FusedAdam: an Adam step is a small share of a PPO/A2C update, and
  // the Pendulum PPO learning test's seed 2 sits on an edge that a change of Adam's float
  // rounding tips over (-183 with LibTorch's Adam, -466 with FusedAdam).
  const bool a2c = options.algo == "a2c";
  return std::make_unique<torch::optim::Adam>(
      values, torch::optim::AdamOptions(a2c ? options.a2c.learning_rate
                                            : options.ppo.learning_rate)
                  .eps(a2c ? options.a2c.optimizer_eps : options.ppo.adam_eps));
}

// What data-parallel training hooks into an agent's update, given the agent's flat parameters
// (nothing, for a single process).
using GradientHookFactory = std::function<agents::GradientHook(nn::FlatParameters&)>;

std::unique_ptr<agents::Agent> make_dqn(const ExperimentOptions& options,
                                        const envs::EnvSpec& spec,
                                        const GradientHookFactory& hook_for) {
  const auto q_options =
      nn::QNetworkOptions(envs::flat_size(spec.observation_space),
                          std::get<envs::Discrete>(spec.action_space).n)
          .hidden_sizes(options.network.hidden_sizes)
          .activation(nn::activation_from_name(options.network.activation))
          .dueling(options.network.dueling);
  nn::QNetwork online(q_options);
  nn::QNetwork target(q_options);
  auto parameters = std::make_shared<nn::FlatParameters>(*online);
  auto optimizer = std::make_unique<nn::FusedAdam>(
      std::vector<at::Tensor>{parameters->values()},
      torch::optim::AdamOptions(options.dqn.learning_rate));
  agents::GradientHook hook = hook_for(*parameters);
  auto dqn = std::make_unique<agents::Dqn>(
      options.dqn, std::move(online), std::move(target), std::move(parameters),
      std::move(optimizer), options.env.num_envs, options.train.total_steps,
      core::derive_seed(static_cast<std::uint64_t>(options.seed), kExplorationStream));
  dqn->set_gradient_hook(std::move(hook));
  return dqn;
}

std::unique_ptr<agents::Agent> build_agent(const ExperimentOptions& options,
                                           const envs::EnvSpec& spec,
                                           const GradientHookFactory& hook_for) {
  torch::manual_seed(core::derive_seed(static_cast<std::uint64_t>(options.seed), 0x746f7263));
  if (options.algo == "dqn") return make_dqn(options, spec, hook_for);
  const bool a2c = options.algo == "a2c";
  nn::ActorCritic model = make_actor_critic(options.network, spec, uses_sde(options));
  auto parameters = std::make_shared<nn::FlatParameters>(*model);
  auto optimizer = make_optimizer(options, *parameters);
  agents::GradientHook hook = hook_for(*parameters);
  const std::int64_t observation_size = envs::flat_size(spec.observation_space);
  const std::int64_t n_steps = a2c ? options.a2c.n_steps : options.ppo.n_steps;
  replay::RolloutBuffer buffer(n_steps, options.env.num_envs, observation_size,
                               stored_action_size(spec));
  std::unique_ptr<agents::ActorCriticAgent> agent;
  if (a2c) {
    agent = std::make_unique<agents::A2c>(options.a2c, std::move(model), std::move(parameters),
                                          std::move(optimizer), std::move(buffer),
                                          action_bounds(spec));
  } else {
    agent = std::make_unique<agents::Ppo>(options.ppo, std::move(model), std::move(parameters),
                                          std::move(optimizer), std::move(buffer),
                                          action_bounds(spec));
  }
  agent->set_gradient_hook(std::move(hook));
  return agent;
}

}  // namespace

std::unique_ptr<agents::Agent> make_agent(const ExperimentOptions& options,
                                          const envs::EnvSpec& spec) {
  return build_agent(options, spec, [](nn::FlatParameters&) { return agents::GradientHook(); });
}

ReplicatedAgent::ReplicatedAgent() = default;
ReplicatedAgent::ReplicatedAgent(ReplicatedAgent&&) noexcept = default;
ReplicatedAgent& ReplicatedAgent::operator=(ReplicatedAgent&&) noexcept = default;
ReplicatedAgent::~ReplicatedAgent() = default;

ReplicatedAgent make_replicated_agent(const ExperimentOptions& options, const envs::EnvSpec& spec,
                                      distributed::Communicator& communicator) {
  ReplicatedAgent replica;
  replica.agent = build_agent(options, spec, [&](nn::FlatParameters& parameters) {
    distributed::GradientSynchronizerOptions sync_options;
    sync_options.bucket_bytes =
        std::max<std::int64_t>(4, static_cast<std::int64_t>(options.distributed.bucket_mb * (1 << 20)));
    replica.synchronizer = std::make_unique<distributed::GradientSynchronizer>(
        communicator, parameters.values(), parameters.gradients(), sync_options);
    return [synchronizer = replica.synchronizer.get()] { synchronizer->average_gradients(); };
  });
  return replica;
}

std::shared_ptr<agents::SharedModel> make_a3c_shared_model(const ExperimentOptions& options,
                                                           const envs::EnvSpec& spec) {
  torch::manual_seed(core::derive_seed(static_cast<std::uint64_t>(options.seed), 0x746f7263));
  nn::ActorCritic model = make_actor_critic(options.network, spec, uses_sde(options));
  const nn::FlatParameters parameters(*model);
  return std::make_shared<agents::SharedModel>(parameters.values());
}

std::unique_ptr<agents::Agent> make_a3c_worker(const ExperimentOptions& options,
                                               const envs::EnvSpec& spec,
                                               std::shared_ptr<agents::SharedModel> shared) {
  return make_a3c_worker_with(options, spec, [&](const at::Tensor& local_parameters) {
    shared->copy_to(local_parameters);
    const agents::A3cOptions& a3c = options.a3c;
    return std::make_unique<agents::SharedRmsprop>(
        local_parameters, std::move(shared),
        torch::optim::RMSpropOptions(a3c.learning_rate)
            .alpha(a3c.rms_prop_alpha)
            .eps(a3c.optimizer_eps));
  });
}

std::unique_ptr<agents::Agent> make_a3c_worker_with(const ExperimentOptions& options,
                                                    const envs::EnvSpec& spec,
                                                    const WorkerOptimizerFactory& make_optimizer) {
  const agents::A3cOptions& a3c = options.a3c;
  nn::ActorCritic model = make_actor_critic(options.network, spec, uses_sde(options));
  auto parameters = std::make_shared<nn::FlatParameters>(*model);
  auto optimizer = make_optimizer(parameters->values());
  replay::RolloutBuffer buffer(a3c.n_steps, options.env.num_envs,
                               envs::flat_size(spec.observation_space), stored_action_size(spec));
  return std::make_unique<agents::A2c>(a3c, std::move(model), std::move(parameters),
                                       std::move(optimizer), std::move(buffer),
                                       action_bounds(spec));
}

std::unique_ptr<agents::Agent> make_a3c_player(const ExperimentOptions& options,
                                               const envs::EnvSpec& spec,
                                               agents::SharedModel& shared) {
  at::Tensor snapshot = at::empty_like(shared.parameters);
  shared.copy_to(snapshot);
  return make_a3c_worker(options, spec, std::make_shared<agents::SharedModel>(snapshot));
}

void set_compute_threads(int threads) {
  const int cpus = static_cast<int>(std::thread::hardware_concurrency());
  if (cpus > 0) threads = std::min(threads, cpus);
  at::set_num_threads(threads);
  core::set_openblas_threads(threads);
}

}  // namespace mnrl::experiments
