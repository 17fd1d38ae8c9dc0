#include "agents/r2d2/r2d2_setup.h"

#include <torch/optim/adam.h>

#include <variant>

#include "agents/encoder_setup.h"
#include "core/seed_streams.h"

namespace mnrl::agents {

void check_r2d2_options(const R2d2Options& r2d2, const std::string& section,
                        const AgentCheck& check) {
  if (!envs::is_discrete(check.spec.action_space)) {
    throw check.document.error_at("algo", "algo: " + section + " needs Discrete actions; '" +
                                              check.env.id + "' has " +
                                              envs::describe(check.spec.action_space));
  }
  if (!check.network.recurrent.on()) {
    throw check.document.error_at("network.recurrent.type",
                                  "algo: " + section +
                                      " learns a recurrent Q-network: set "
                                      "network.recurrent.type to lstm or gru");
  }
  if (r2d2.batch_size > r2d2.buffer_size) {
    throw check.document.error_at(
        section + ".batch_size",
        section + ".batch_size = " + std::to_string(r2d2.batch_size) + " is larger than " +
            section + ".buffer_size = " + std::to_string(r2d2.buffer_size) + " sequences");
  }
  if (r2d2.period > r2d2.burn_in + r2d2.seq_len) {
    throw check.document.error_at(section + ".period",
                                  section + ".period = " + std::to_string(r2d2.period) +
                                      " is longer than a sequence (burn_in + seq_len = " +
                                      std::to_string(r2d2.burn_in + r2d2.seq_len) +
                                      "): steps between sequences would never be stored");
  }
}

std::unique_ptr<R2d2> make_r2d2(const R2d2Options& r2d2, const AgentSetup& setup) {
  const NetworkOptions& network = setup.network;
  const nn::RecurrentQNetworkOptions q_options =
      nn::RecurrentQNetworkOptions(
          envs::flat_size(setup.spec.observation_space),
          std::get<envs::Discrete>(setup.spec.action_space).n,
          nn::RecurrentCoreOptions(0, network.recurrent.hidden_size)
              .cell(network.recurrent.type == "gru" ? nn::RecurrentCell::gru
                                                    : nn::RecurrentCell::lstm)
              .layers(network.recurrent.layers))
          .encoder(encoder_options(network, setup.spec.observation_space))
          .hidden_sizes(network.hidden_sizes)
          .activation(nn::activation_from_name(network.activation))
          .dueling(network.dueling);
  nn::RecurrentQNetwork online(q_options);
  nn::RecurrentQNetwork target(q_options);
  auto parameters = std::make_shared<nn::FlatParameters>(*online);
  auto optimizer = std::make_unique<torch::optim::Adam>(
      std::vector<at::Tensor>{parameters->values()},
      torch::optim::AdamOptions(r2d2.learning_rate).eps(r2d2.adam_eps));
  GradientHook hook = setup.hook_for(*parameters);
  replay::SequenceReplayOptions replay;
  replay.capacity = r2d2.buffer_size;
  replay.observation_size = q_options.observation_size();
  replay.state_size = online->state_size();
  replay.num_envs = setup.num_envs;
  replay.length = r2d2.burn_in + r2d2.seq_len;
  replay.period = r2d2.sequence_period();
  replay.per = {r2d2.per_alpha, r2d2.per_beta0, r2d2.per_eps};
  replay.observation_dtype = envs::element_dtype(setup.spec.observation_space);
  replay.byte_scale = envs::byte_scale(setup.spec.observation_space);
  auto agent = std::make_unique<R2d2>(
      r2d2, std::move(online), std::move(target), std::move(parameters), std::move(optimizer),
      std::make_unique<replay::SequenceReplay>(replay), setup.total_steps,
      core::derive_seed(setup.seed, core::kExplorationStream));
  agent->set_gradient_hook(std::move(hook));
  return agent;
}

}  // namespace mnrl::agents
