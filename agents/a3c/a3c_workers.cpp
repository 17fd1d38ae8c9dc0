#include "agents/a3c/a3c_workers.h"

#include <ATen/ops/empty_like.h>

#include "agents/a2c/a2c.h"
#include "agents/actor_critic_setup.h"
#include "nn/flat_parameters.h"

namespace mnrl::agents {

std::shared_ptr<SharedModel> make_a3c_shared_model(const A3cOptions& a3c,
                                                   const AgentSetup& setup) {
  nn::ActorCritic model = make_actor_critic(setup, a3c.use_sde);
  const nn::FlatParameters parameters(*model);
  return std::make_shared<SharedModel>(parameters.values());
}

std::unique_ptr<Agent> make_a3c_worker(const A3cOptions& a3c, const AgentSetup& setup,
                                       std::shared_ptr<SharedModel> shared) {
  return make_a3c_worker_with(a3c, setup, [&](const at::Tensor& local_parameters) {
    shared->copy_to(local_parameters);
    return std::make_unique<SharedRmsprop>(local_parameters, std::move(shared),
                                           torch::optim::RMSpropOptions(a3c.learning_rate)
                                               .alpha(a3c.rms_prop_alpha)
                                               .eps(a3c.optimizer_eps));
  });
}

std::unique_ptr<Agent> make_a3c_worker_with(const A3cOptions& a3c, const AgentSetup& setup,
                                            const WorkerOptimizerFactory& make_optimizer) {
  nn::ActorCritic model = make_actor_critic(setup, a3c.use_sde);
  auto parameters = std::make_shared<nn::FlatParameters>(*model);
  auto optimizer = make_optimizer(parameters->values());
  return std::make_unique<A2c>(a3c, std::move(model), std::move(parameters), std::move(optimizer),
                               make_rollout_buffer(a3c.n_steps, setup.num_envs, setup.spec),
                               action_bounds(setup.spec));
}

std::shared_ptr<SharedModel> snapshot_of(SharedModel& shared) {
  at::Tensor snapshot = at::empty_like(shared.parameters);
  shared.copy_to(snapshot);
  return std::make_shared<SharedModel>(snapshot);
}

std::unique_ptr<Agent> make_a3c_player(const A3cOptions& a3c, const AgentSetup& setup,
                                       SharedModel& shared) {
  return make_a3c_worker(a3c, setup, snapshot_of(shared));
}

}  // namespace mnrl::agents
