#include "agents/actor_critic_setup.h"

#include <variant>

#include "agents/encoder_setup.h"
#include "nn/capturable_adam.h"

namespace mnrl::agents {

nn::ActorCritic make_actor_critic(const AgentSetup& setup, bool use_sde) {
  const NetworkOptions& network = setup.network;
  const envs::EnvSpec& spec = setup.spec;
  const std::int64_t observation_size = envs::flat_size(spec.observation_space);
  const bool continuous = !envs::is_discrete(spec.action_space);
  const std::int64_t action_size = continuous ? envs::flat_size(spec.action_space)
                                              : std::get<envs::Discrete>(spec.action_space).n;
  std::optional<nn::RecurrentCoreOptions> recurrent;
  if (network.recurrent.on()) {
    recurrent = nn::RecurrentCoreOptions(0, network.recurrent.hidden_size)
                    .cell(network.recurrent.type == "gru" ? nn::RecurrentCell::gru
                                                          : nn::RecurrentCell::lstm)
                    .layers(network.recurrent.layers)
                    .shared(network.recurrent.shared);
  }
  nn::ActorCritic model(nn::ActorCriticOptions(observation_size, action_size)
                            .encoder(encoder_options(network, spec.observation_space))
                            .recurrent(recurrent)
                            .byte_scale(envs::byte_scale(spec.observation_space))
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
                                     .learn_features(network.learn_features))
                            .bf16_autocast(setup.bf16_autocast));
  // Initialized on the CPU (the same weights on every device), then moved: before
  // FlatParameters gathers the parameters into one buffer.
  model->to(at::Device(setup.device));
  return model;
}

replay::RolloutBuffer make_rollout_buffer(std::int64_t n_steps, std::int64_t num_envs,
                                          const envs::EnvSpec& spec) {
  // Floats per action: the index of a Discrete action, or the Box values.
  const std::int64_t action_size =
      envs::is_discrete(spec.action_space) ? 1 : envs::flat_size(spec.action_space);
  return replay::RolloutBuffer(n_steps, num_envs, envs::flat_size(spec.observation_space),
                               action_size);
}

std::unique_ptr<torch::optim::Optimizer> make_actor_critic_adam(
    const nn::FlatParameters& parameters, const torch::optim::AdamOptions& options,
    const std::string& device) {
  const std::vector<at::Tensor> values{parameters.values()};
  if (device == "cpu") return std::make_unique<torch::optim::Adam>(values, options);
  return std::make_unique<nn::CapturableAdam>(values, options);
}

}  // namespace mnrl::agents
