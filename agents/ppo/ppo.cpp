#include "agents/ppo/ppo.h"

#include <algorithm>

#include <ATen/TensorOperators.h>
#include <ATen/ops/randperm.h>
#include <ATen/ops/stack.h>
#include <torch/utils.h>

#include "agents/actor_critic_loss.h"
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

  // Sums over minibatches: policy loss, value loss, entropy, old and new KL estimates (as
  // CleanRL: mean(-log r) and mean((r - 1) - log r)), clip fraction.
  at::Tensor statistics;
  std::int64_t minibatches = 0;
  // One minibatch holding the whole rollout needs no shuffling: the loss is a mean.
  const bool shuffle = options_.batch_size < total;
  for (std::int64_t epoch = 0; epoch < options_.n_epochs; ++epoch) {
    const at::Tensor order = shuffle ? at::randperm(total, at::kLong) : at::Tensor();
    for (std::int64_t start = 0; start < total; start += options_.batch_size) {
      const std::int64_t count = std::min(options_.batch_size, total - start);
      const ActorCriticLoss loss = actor_critic_loss(
          *model_, shuffle ? rollout.select(order.narrow(0, start, count)) : rollout,
          loss_options);
      gradient_step(loss.total, options_.max_grad_norm);

      torch::NoGradGuard no_grad;
      const at::Tensor ratio_change = loss.log_ratio.exp() - 1;
      // Summed as one tensor and read once per update, not once per minibatch.
      const at::Tensor minibatch_statistics =
          at::stack({loss.policy_loss, loss.value_loss, loss.entropy, (-loss.log_ratio).mean(),
                     (ratio_change - loss.log_ratio).mean(),
                     (ratio_change.abs() > clip).to(at::kFloat).mean()});
      statistics =
          statistics.defined() ? statistics + minibatch_statistics : minibatch_statistics;
      ++minibatches;
    }
  }
  const double explained = explained_variance(rollout.returns, rollout.values);
  clear_rollout();

  const at::Tensor means = (statistics / minibatches).to(at::kDouble);
  const double* mean = means.data_ptr<double>();
  return {{"losses/policy_loss", mean[0]},
          {"losses/value_loss", mean[1]},
          {"losses/entropy", mean[2]},
          {"losses/old_approx_kl", mean[3]},
          {"losses/approx_kl", mean[4]},
          {"losses/clipfrac", mean[5]},
          {"losses/explained_variance", explained},
          {"charts/learning_rate", learning_rate},
          {"charts/clip_range", clip}};
}

}  // namespace mnrl::agents
