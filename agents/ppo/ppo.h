#pragma once

#include <memory>

#include "agents/actor_critic_agent.h"
#include "agents/ppo/ppo_options.h"

namespace mnrl::agents {

// Proximal Policy Optimization (clipped surrogate), as SB3 and CleanRL implement it, for
// Discrete and Box actions. Collaborators come from the caller (the experiment builds them from
// the config): the actor-critic, its flattened parameters, an optimizer over
// flat_parameters.values(), and a rollout buffer sized n_steps x num_envs.
class Ppo final : public ActorCriticAgent {
 public:
  Ppo(PpoOptions options, nn::ActorCritic model, std::shared_ptr<nn::FlatParameters> parameters,
      std::unique_ptr<torch::optim::Optimizer> optimizer, replay::RolloutBuffer buffer,
      ActionBounds bounds);

  Statistics update(const TrainingProgress& progress) override;

 private:
  PpoOptions options_;
};

}  // namespace mnrl::agents
