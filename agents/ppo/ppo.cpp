#include "agents/ppo/ppo.h"

#include <algorithm>

#include "agents/schedule.h"

namespace mnrl::agents {

Ppo::Ppo(PpoOptions options, nn::ActorCritic model, std::shared_ptr<nn::FlatParameters> parameters,
         std::unique_ptr<torch::optim::Optimizer> optimizer, replay::RolloutBuffer buffer,
         ActionBounds bounds)
    : ActorCriticAgent(std::move(model), std::move(parameters), std::move(optimizer),
                       std::move(buffer), std::move(bounds), options.sde_sample_freq),
      options_(std::move(options)) {
  if (options_.seq_len > 0) set_sequence_length(options_.seq_len);
}

Statistics Ppo::update(const TrainingProgress& progress) {
  const RolloutBatch rollout = finish_rollout(options_.gamma, options_.gae_lambda);
  const std::int64_t total = rollout.returns.size(0);
  const double learning_rate =
      scheduled(options_.learning_rate, options_.lr_schedule, progress.remaining());
  const double clip = scheduled(options_.clip_range, options_.clip_range_schedule,
                                progress.remaining());
  set_learning_rate(learning_rate);
  const ActorCriticLossOptions loss_options{clip, options_.clip_range_vf, options_.vf_coef,
                                            options_.ent_coef, options_.normalize_advantage};

  LossSums sums;  // of the loss parts and diagnostics, over the minibatches
  // One minibatch holding the whole rollout needs no shuffling: the loss is a mean.
  const bool shuffle = options_.batch_size < total;
  for (std::int64_t epoch = 0; epoch < options_.n_epochs; ++epoch) {
    const at::Tensor order = shuffle ? minibatch_order(options_.batch_size) : at::Tensor();
    for (std::int64_t start = 0; start < total; start += options_.batch_size) {
      const std::int64_t count = std::min(options_.batch_size, total - start);
      gradient_step(rollout, {order, start, count}, loss_options, options_.max_grad_norm, sums);
    }
  }
  const double explained = explained_variance(rollout.returns, rollout.values);
  clear_rollout();

  const LossValues means = sums.means();
  return {{"losses/policy_loss", means.policy_loss},
          {"losses/value_loss", means.value_loss},
          {"losses/entropy", means.entropy},
          {"losses/old_approx_kl", means.old_approx_kl},
          {"losses/approx_kl", means.approx_kl},
          {"losses/clipfrac", means.clip_fraction},
          {"losses/explained_variance", explained},
          {"charts/learning_rate", learning_rate},
          {"charts/clip_range", clip}};
}

}  // namespace mnrl::agents
