#pragma once

#include <memory>

#include "agents/a2c/a2c_options.h"
#include "agents/actor_critic_agent.h"

namespace mnrl::agents {

// A2C for Discrete and Box actions: after each rollout, one gradient step on the policy
// gradient -A log pi plus the value and entropy terms (the loss PPO uses without clipping).
class A2c final : public ActorCriticAgent {
 public:
  A2c(A2cOptions options, nn::ActorCritic model, std::shared_ptr<nn::FlatParameters> parameters,
      std::unique_ptr<torch::optim::Optimizer> optimizer, replay::RolloutBuffer buffer,
      ActionBounds bounds);

  Statistics update(const TrainingProgress& progress) override;

 private:
  A2cOptions options_;
};

}  // namespace mnrl::agents
