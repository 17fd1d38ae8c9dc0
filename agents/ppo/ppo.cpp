#include "agents/ppo/ppo.h"

#include <algorithm>

#include <ATen/ops/randperm.h>

#include "agents/schedule.h"

namespace mnrl::agents {

Ppo::Ppo(PpoOptions options, nn::ActorCritic model, std::shared_ptr<nn::FlatParameters> parameters,
         std::unique_ptr<torch::optim::Optimizer> optimizer, replay::RolloutBuffer buffer,
         ActionBounds bounds)
    : ActorCriticAgent(std::move(model), std::move(parameters), std::move(optimizer),
                       std::move(buffer), std::move(bounds), options.sde_sample_freq),
      options_(std::move(options)) {}

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

  // Means over minibatches of the loss parts and diagnostics.
  LossValues sums;
  std::int64_t minibatches = 0;
  // One minibatch holding the whole rollout needs no shuffling: the loss is a mean.
  const bool shuffle = options_.batch_size < total;
  for (std::int64_t epoch = 0; epoch < options_.n_epochs; ++epoch) {
    const at::Tensor order = shuffle ? at::randperm(total, at::kLong) : at::Tensor();
    for (std::int64_t start = 0; start < total; start += options_.batch_size) {
      const std::int64_t count = std::min(options_.batch_size, total - start);
      const LossValues loss =
          gradient_step(rollout, shuffle ? order.data_ptr<std::int64_t>() + start : nullptr,
                        count, loss_options, options_.max_grad_norm);
      sums.policy_loss += loss.policy_loss;
      sums.value_loss += loss.value_loss;
      sums.entropy += loss.entropy;
      sums.old_approx_kl += loss.old_approx_kl;
      sums.approx_kl += loss.approx_kl;
      sums.clip_fraction += loss.clip_fraction;
      ++minibatches;
    }
  }
  const double explained = explained_variance(rollout.returns, rollout.values);
  clear_rollout();

  const auto n = static_cast<double>(minibatches);
  return {{"losses/policy_loss", sums.policy_loss / n},
          {"losses/value_loss", sums.value_loss / n},
          {"losses/entropy", sums.entropy / n},
          {"losses/old_approx_kl", sums.old_approx_kl / n},
          {"losses/approx_kl", sums.approx_kl / n},
          {"losses/clipfrac", sums.clip_fraction / n},
          {"losses/explained_variance", explained},
          {"charts/learning_rate", learning_rate},
          {"charts/clip_range", clip}};
}

}  // namespace mnrl::agents
