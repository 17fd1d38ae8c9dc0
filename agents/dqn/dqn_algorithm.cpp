// DQN's registration: its `dqn:` section, checks and factory.
#include <variant>

#include "agents/dqn/dqn.h"
#include "agents/encoder_setup.h"
#include "agents/registry.h"
#include "core/rng.h"
#include "core/seed_streams.h"
#include "nn/fused_adam.h"

namespace mnrl::agents {
namespace {

class DqnAlgorithm final : public AlgorithmOf<DqnOptions> {
 public:
  std::string summary() const override { return "DQN hyperparameters (algo: dqn)"; }
  bool takes_encoder() const override { return true; }
  bool takes_device() const override { return true; }

 protected:
  void check_options(const DqnOptions& dqn, const AgentCheck& check) const override {
    if (!envs::is_discrete(check.spec.action_space)) {
      throw check.document.error_at("algo", "algo: dqn needs Discrete actions; '" + check.env.id +
                                                "' has " + envs::describe(check.spec.action_space));
    }
    if (dqn.batch_size > dqn.buffer_size) {
      throw check.document.error_at(
          "dqn.batch_size",
          "dqn.batch_size = " + std::to_string(dqn.batch_size) +
              " is larger than dqn.buffer_size = " + std::to_string(dqn.buffer_size));
    }
  }

  std::unique_ptr<Agent> make(const DqnOptions& dqn, const AgentSetup& setup) const override {
    const auto q_options =
        nn::QNetworkOptions(envs::flat_size(setup.spec.observation_space),
                            std::get<envs::Discrete>(setup.spec.action_space).n)
            .encoder(encoder_options(setup.network, setup.spec.observation_space))
            .hidden_sizes(setup.network.hidden_sizes)
            .activation(nn::activation_from_name(setup.network.activation))
            .dueling(setup.network.dueling);
    nn::QNetwork online(q_options);
    nn::QNetwork target(q_options);
    // Initialized on the CPU (the same weights on every device), then moved before
    // FlatParameters gathers each network into one buffer.
    online->to(at::Device(setup.device));
    target->to(at::Device(setup.device));
    auto parameters = std::make_shared<nn::FlatParameters>(*online);
    auto optimizer = std::make_unique<nn::FusedAdam>(std::vector<at::Tensor>{parameters->values()},
                                                     torch::optim::AdamOptions(dqn.learning_rate));
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
    return agent;
  }

  void scale(DqnOptions& dqn, double factor) const override { dqn.learning_rate *= factor; }

  StoredTransitions stored(const DqnOptions& dqn, std::int64_t) const override {
    return {"dqn.buffer_size", static_cast<double>(dqn.buffer_size)};
  }
};

}  // namespace

MNRL_REGISTER_AGENT("dqn", DqnAlgorithm);

}  // namespace mnrl::agents
