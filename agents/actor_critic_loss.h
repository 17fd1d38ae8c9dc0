#pragma once

#include <optional>

#include <ATen/core/Tensor.h>

#include "agents/rollout_batch.h"
#include "nn/actor_critic.h"

namespace mnrl::agents {

struct ActorCriticLossOptions {
  std::optional<double> clip_range;     // PPO's ratio clip; none = A2C's policy gradient
  std::optional<double> clip_range_vf;  // value clip around the collected values; none = off
  double vf_coef = 0.5;
  double ent_coef = 0.0;
  bool normalize_advantage = false;     // over this batch
};

// The loss and its parts on one (mini)batch.
struct ActorCriticLoss {
  at::Tensor total;
  at::Tensor policy_loss;
  at::Tensor value_loss;
  at::Tensor entropy;    // mean; in the graph only when ent_coef > 0
  at::Tensor log_ratio;  // log pi(a|s) - log pi_old(a|s), per row, no gradient
};

// The actor-critic loss of PPO (clipped surrogate) and A2C (policy gradient -A log pi):
// policy_loss + vf_coef * value_loss - ent_coef * entropy, with value_loss the mean squared
// error to the returns. A recurrent model replays `batch` as `sequences` sequences laid out
// [step][sequence] from the memory before their first step.
ActorCriticLoss actor_critic_loss(nn::ActorCriticImpl& model, const RolloutBatch& batch,
                                  const ActorCriticLossOptions& options,
                                  std::int64_t sequences = 0);
// The same loss from the model's outputs for `batch`'s rows: the values [n] and the action
// distribution (a network cut into pipeline stages computes them on its last stage).
ActorCriticLoss actor_critic_loss_of(const at::Tensor& values,
                                     const nn::ActionDistribution& distribution,
                                     const RolloutBatch& batch,
                                     const ActorCriticLossOptions& options);

}  // namespace mnrl::agents
