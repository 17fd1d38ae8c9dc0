#include "agents/actor_critic_loss.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/mse_loss.h>
#include <torch/utils.h>

namespace mnrl::agents {

ActorCriticLoss actor_critic_loss(nn::ActorCriticImpl& model, const RolloutBatch& batch,
                                  const ActorCriticLossOptions& options, std::int64_t sequences) {
  const nn::PolicyValue output = model.recurrent()
                                     ? model.forward(batch.observations, batch.episode_starts,
                                                     batch.memory.narrow(0, 0, sequences))
                                     : model.forward(batch.observations);
  return actor_critic_loss_of(output.value, *model.distribution(output), batch, options);
}

ActorCriticLoss actor_critic_loss_of(const at::Tensor& values,
                                     const nn::ActionDistribution& distribution,
                                     const RolloutBatch& batch,
                                     const ActorCriticLossOptions& options) {
  const at::Tensor log_prob = distribution.log_prob(batch.actions);

  at::Tensor advantages = batch.advantages;
  if (options.normalize_advantage && advantages.size(0) > 1) {
    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8);
  }
  ActorCriticLoss loss;
  if (options.clip_range) {
    const double clip = *options.clip_range;
    const at::Tensor ratio = (log_prob - batch.log_probs).exp();
    loss.policy_loss =
        -at::min(advantages * ratio, advantages * ratio.clamp(1.0 - clip, 1.0 + clip)).mean();
  } else {
    loss.policy_loss = -(advantages * log_prob).mean();
  }
  const at::Tensor predicted =
      options.clip_range_vf
          ? batch.values +
                (values - batch.values).clamp(-*options.clip_range_vf, *options.clip_range_vf)
          : values;
  loss.value_loss = at::mse_loss(predicted, batch.returns);
  loss.total = loss.policy_loss + options.vf_coef * loss.value_loss;
  // Without an entropy bonus the entropy is only reported: keep it out of the graph.
  if (options.ent_coef > 0) {
    loss.entropy = distribution.entropy().mean();
    loss.total = loss.total - options.ent_coef * loss.entropy;
  }
  torch::NoGradGuard no_grad;
  if (!loss.entropy.defined()) loss.entropy = distribution.entropy().mean();
  loss.log_ratio = log_prob - batch.log_probs;
  return loss;
}

}  // namespace mnrl::agents
