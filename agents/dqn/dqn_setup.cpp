#include "agents/dqn/dqn_setup.h"

#include <variant>

#include "agents/encoder_setup.h"
#include "core/rng.h"
#include "core/seed_streams.h"
#include "nn/capturable_adam.h"
#include "nn/fused_adam.h"

namespace mnrl::agents {

void check_dqn_options(const DqnOptions& dqn, const std::string& section, const AgentCheck& check) {
  if (!envs::is_discrete(check.spec.action_space)) {
    throw check.document.error_at("algo", "algo: " + section + " needs Discrete actions; '" +
                                              check.env.id + "' has " +
                                              envs::describe(check.spec.action_space));
  }
  if (dqn.batch_size > dqn.buffer_size) {
    throw check.document.error_at(section + ".batch_size",
                                  section + ".batch_size = " + std::to_string(dqn.batch_size) +
                                      " is larger than " + section +
                                      ".buffer_size = " + std::to_string(dqn.buffer_size));
  }
  const ReturnDistributionOptions& distribution = dqn.distribution;
  if (distribution.distributional == "c51" && !(distribution.v_min < distribution.v_max)) {
    throw check.document.error_at(section + ".v_max",
                                  section + ".v_max = " + std::to_string(distribution.v_max) +
                                      " must be above " + section +
                                      ".v_min = " + std::to_string(distribution.v_min));
  }
  if (distribution.implicit() && distribution.risk == "cvar" &&
      !(distribution.risk_eta > 0 && distribution.risk_eta <= 1)) {
    throw check.document.error_at(section + ".risk_eta",
                                  section + ".risk_eta = " + std::to_string(distribution.risk_eta) +
                                      ": risk cvar takes the worst eta of the returns, eta in "
                                      "(0, 1]");
  }
}

namespace {

// nn::FusedAdam on the CPU (one pass over the flat parameters), nn::CapturableAdam on a GPU
// (which gradient steps run as CUDA graphs need).
std::unique_ptr<torch::optim::Optimizer> make_dqn_adam(const nn::FlatParameters& parameters,
                                                       const DqnOptions& dqn) {
  const std::vector<at::Tensor> values{parameters.values()};
  const auto options = torch::optim::AdamOptions(dqn.learning_rate).eps(dqn.adam_epsilon());
  if (values[0].is_cpu()) return std::make_unique<nn::FusedAdam>(values, options);
  return std::make_unique<nn::CapturableAdam>(values, options);
}

}  // namespace

std::unique_ptr<Dqn> make_dqn(const DqnOptions& dqn, const AgentSetup& setup) {
  const auto q_options = return_distribution_of(dqn)->network(
      nn::QNetworkOptions(envs::flat_size(setup.spec.observation_space),
                          std::get<envs::Discrete>(setup.spec.action_space).n)
          .encoder(encoder_options(setup.network, setup.spec.observation_space))
          .hidden_sizes(setup.network.hidden_sizes)
          .activation(nn::activation_from_name(setup.network.activation))
          .dueling(setup.network.dueling)
          .noisy_sigma0(dqn.distribution.noisy ? dqn.distribution.noisy_sigma0 : 0.0)
          .bf16_autocast(setup.bf16_autocast));
  nn::QNetwork online(q_options);
  nn::QNetwork target(q_options);
  // Initialized on the CPU (the same weights on every device), then moved before
  // FlatParameters gathers each network into one buffer.
  online->to(at::Device(setup.device));
  target->to(at::Device(setup.device));
  auto parameters = std::make_shared<nn::FlatParameters>(*online);
  auto optimizer = make_dqn_adam(*parameters, dqn);
  GradientHook hook = setup.hook_for(*parameters);
  replay::ReplayOptions replay;
  replay.capacity = dqn.buffer_size;
  replay.observation_size = q_options.observation_size();
  replay.observation_dtype = envs::element_dtype(setup.spec.observation_space);
  replay.byte_scale = envs::byte_scale(setup.spec.observation_space);
  replay.num_envs = setup.num_envs;
  replay.n_step = dqn.n_step;
  replay.gamma = static_cast<float>(dqn.gamma);
  replay.prioritized = dqn.prioritized;
  replay.per = {dqn.per_alpha, dqn.per_beta0, dqn.per_eps};
  auto agent = std::make_unique<Dqn>(dqn, std::move(online), std::move(target),
                                     std::move(parameters), std::move(optimizer),
                                     std::make_unique<replay::Replay>(replay), setup.total_steps,
                                     core::derive_seed(setup.seed, core::kExplorationStream));
  agent->set_gradient_hook(std::move(hook));
  agent->set_cuda_graphs(setup.cuda_graphs);
  agent->hand_over_td_steps(setup);
  return agent;
}

}  // namespace mnrl::agents
