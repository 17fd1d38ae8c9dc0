// A2C's registration: its `a2c:` section and factory.
#include <torch/optim/adam.h>
#include <torch/optim/rmsprop.h>

#include "agents/a2c/a2c.h"
#include "agents/actor_critic_setup.h"
#include "agents/registry.h"

namespace mnrl::agents {
namespace {

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const A2cOptions& a2c,
                                                        const nn::FlatParameters& parameters,
                                                        const std::string& device) {
  if (a2c.optimizer == "rmsprop") {
    return std::make_unique<torch::optim::RMSprop>(std::vector<at::Tensor>{parameters.values()},
                                                   torch::optim::RMSpropOptions(a2c.learning_rate)
                                                       .alpha(a2c.rms_prop_alpha)
                                                       .eps(a2c.optimizer_eps));
  }
  return make_actor_critic_adam(
      parameters, torch::optim::AdamOptions(a2c.learning_rate).eps(a2c.optimizer_eps), device);
}

class A2cAlgorithm final : public AlgorithmOf<A2cOptions> {
 public:
  std::string summary() const override { return "A2C hyperparameters (algo: a2c)"; }
  bool takes_encoder() const override { return true; }
  bool takes_recurrent() const override { return true; }
  bool takes_pipeline_stages() const override { return true; }
  bool takes_device() const override { return true; }
  bool captures_gradient_steps() const override { return true; }

 protected:
  std::unique_ptr<Agent> make(const A2cOptions& a2c, const AgentSetup& setup) const override {
    nn::ActorCritic model = make_actor_critic(setup, a2c.use_sde);
    auto parameters = std::make_shared<nn::FlatParameters>(*model);
    auto optimizer = make_optimizer(a2c, *parameters, setup.device);
    GradientHook hook = setup.hook_for(*parameters);
    auto agent = std::make_unique<A2c>(a2c, std::move(model), std::move(parameters),
                                       std::move(optimizer),
                                       make_rollout_buffer(a2c.n_steps, setup.num_envs, setup.spec),
                                       action_bounds(setup.spec));
    agent->set_gradient_hook(std::move(hook));
    agent->set_cuda_graphs(setup.cuda_graphs);
    agent->hand_over_gradient_steps(setup);
    return agent;
  }

  void scale(A2cOptions& a2c, double factor) const override { a2c.learning_rate *= factor; }

  StoredTransitions stored(const A2cOptions& a2c, std::int64_t num_envs) const override {
    return {"a2c.n_steps", static_cast<double>(a2c.n_steps) * static_cast<double>(num_envs)};
  }

  bool sde(const A2cOptions& a2c) const override { return a2c.use_sde; }

  // One gradient step on the whole rollout.
  StoredTransitions step_rows(const A2cOptions& a2c, std::int64_t num_envs) const override {
    return stored(a2c, num_envs);
  }
};

}  // namespace

MNRL_REGISTER_AGENT("a2c", A2cAlgorithm);

}  // namespace mnrl::agents
