#include "agents/off_policy/off_policy_setup.h"

#include <cmath>
#include <variant>

#include "nn/activation.h"

namespace mnrl::agents {

void check_off_policy(const std::string& algo, const OffPolicyOptions& options,
                      const AgentCheck& check) {
  const auto* box = std::get_if<envs::Box>(&check.spec.action_space);
  if (!box) {
    throw check.document.error_at(
        "algo", "algo: " + algo + " needs Box (continuous) actions; '" + check.env.id + "' has " +
                    envs::describe(check.spec.action_space) + " (use dqn, ppo or a2c)");
  }
  for (std::size_t j = 0; j < box->low.size(); ++j) {
    if (!std::isfinite(box->low[j]) || !std::isfinite(box->high[j])) {
      throw check.document.error_at(
          "algo", "algo: " + algo + " maps its actions onto the action space's bounds; '" +
                      check.env.id + "' has an unbounded " +
                      envs::describe(check.spec.action_space) +
                      " (an env needs finite bounds for it; a clip_action wrapper hides them: "
                      "leave it out)");
    }
  }
  if (options.batch_size > options.buffer_size) {
    throw check.document.error_at(algo + ".batch_size",
                                  algo + ".batch_size = " + std::to_string(options.batch_size) +
                                      " is larger than " + algo +
                                      ".buffer_size = " + std::to_string(options.buffer_size));
  }
}

std::unique_ptr<replay::Replay> make_off_policy_replay(const OffPolicyOptions& options,
                                                       const AgentSetup& setup) {
  replay::ReplayOptions replay;
  replay.capacity = options.buffer_size;
  replay.observation_size = envs::flat_size(setup.spec.observation_space);
  replay.observation_dtype = envs::element_dtype(setup.spec.observation_space);
  replay.byte_scale = envs::byte_scale(setup.spec.observation_space);
  replay.action_size = envs::flat_size(setup.spec.action_space);
  replay.num_envs = setup.num_envs;
  replay.n_step = options.n_step;
  replay.gamma = static_cast<float>(options.gamma);
  return std::make_unique<replay::Replay>(replay);
}

std::shared_ptr<OffPolicyNetworks> make_off_policy_networks(
    const AgentSetup& setup, int critics, ActorKind kind, std::optional<double> initial_log_alpha) {
  const std::int64_t observation_size = envs::flat_size(setup.spec.observation_space);
  const std::int64_t action_size = envs::flat_size(setup.spec.action_space);
  const nn::Activation activation = nn::activation_from_name(setup.network.activation);
  nn::ContinuousActor actor(nn::ContinuousActorOptions(observation_size, action_size)
                                .hidden_sizes(setup.network.hidden_sizes)
                                .activation(activation)
                                .stochastic(kind.stochastic)
                                .state_dependent_noise(kind.state_dependent_noise)
                                .full_std(setup.network.full_std)
                                .use_expln(setup.network.use_expln)
                                .log_std_init(setup.network.log_std_init)
                                .bf16_autocast(setup.bf16_autocast));
  std::vector<nn::ContinuousQNetwork> q_networks;
  for (int i = 0; i < critics; ++i) {
    q_networks.emplace_back(nn::ContinuousQNetworkOptions(observation_size, action_size)
                                .hidden_sizes(setup.network.hidden_sizes)
                                .activation(activation)
                                .bf16_autocast(setup.bf16_autocast));
  }
  auto networks = std::make_shared<OffPolicyNetworks>(std::move(q_networks), std::move(actor),
                                                      initial_log_alpha);
  networks->to(at::Device(setup.device));
  return networks;
}

GradientPath gradient_path_for(const std::string& device) {
  return device == "cpu" ? GradientPath::by_hand : GradientPath::autograd;
}

StoredTransitions off_policy_stored(const std::string& algo, const OffPolicyOptions& options) {
  return {algo + ".buffer_size", static_cast<double>(options.buffer_size)};
}

}  // namespace mnrl::agents
