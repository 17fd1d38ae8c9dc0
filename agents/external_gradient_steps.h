#pragma once

#include "agents/actor_critic_loss.h"
#include "agents/actor_critic_loss_gradients.h"
#include "agents/rollout_batch.h"

namespace mnrl::agents {

// Gradient steps an ActorCriticAgent hands over to parameters held elsewhere (the stages of a
// pipeline across ranks, topologies/pipeline/): the agent's own model is then the acting copy,
// brought up to date at the end of each update.
class ExternalGradientSteps {
 public:
  virtual ~ExternalGradientSteps() = default;
  virtual void set_learning_rate(double learning_rate) = 0;
  // One gradient step of actor_critic_loss() on `batch` (rows of the finished rollout),
  // clipped to `max_grad_norm`; the loss's parts.
  virtual LossValues step(const RolloutBatch& batch, const ActorCriticLossOptions& options,
                          double max_grad_norm) = 0;
  // The acting model's parameters become the steps' latest.
  virtual void synchronize() = 0;
};

}  // namespace mnrl::agents
