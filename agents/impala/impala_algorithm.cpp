// IMPALA's registration: its `impala:` section and factory.
#include <torch/optim/adam.h>

#include "agents/actor_critic_setup.h"
#include "agents/impala/impala.h"
#include "agents/registry.h"

namespace mnrl::agents {
namespace {

class ImpalaAlgorithm final : public AlgorithmOf<ImpalaOptions> {
 public:
  std::string summary() const override { return "IMPALA hyperparameters (algo: impala)"; }
  std::string topology() const override { return "impala_actors"; }
  bool takes_encoder() const override { return true; }
  bool takes_recurrent() const override { return true; }
  // The learners: actors act on the CPU whatever train.device says.
  bool takes_device() const override { return true; }
  bool captures_gradient_steps() const override { return true; }

 protected:
  // setup.num_envs: an actor's envs, or a learner's batch_trajectories times as many.
  std::unique_ptr<Agent> make(const ImpalaOptions& impala,
                              const AgentSetup& setup) const override {
    nn::ActorCritic model = make_actor_critic(setup, false);
    auto parameters = std::make_shared<nn::FlatParameters>(*model);
    auto optimizer = make_actor_critic_adam(
        *parameters, torch::optim::AdamOptions(impala.learning_rate).eps(impala.optimizer_eps),
        setup.device);
    GradientHook hook = setup.hook_for(*parameters);
    auto agent = std::make_unique<Impala>(
        impala, std::move(model), std::move(parameters), std::move(optimizer),
        make_rollout_buffer(impala.unroll_length, setup.num_envs, setup.spec),
        action_bounds(setup.spec));
    agent->set_gradient_hook(std::move(hook));
    agent->set_cuda_graphs(setup.cuda_graphs);
    return agent;
  }

  void scale(ImpalaOptions& impala, double factor) const override {
    impala.learning_rate *= factor;
  }

  StoredTransitions stored(const ImpalaOptions& impala, std::int64_t num_envs) const override {
    return {"impala.unroll_length", static_cast<double>(impala.unroll_length) *
                                        static_cast<double>(impala.batch_trajectories) *
                                        static_cast<double>(num_envs)};
  }
};

}  // namespace

MNRL_REGISTER_AGENT("impala", ImpalaAlgorithm);

}  // namespace mnrl::agents
