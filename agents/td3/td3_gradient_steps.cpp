#include "agents/td3/td3_gradient_steps.h"

#include <stdexcept>

#include <ATen/TensorOperators.h>
#include <ATen/ops/clamp.h>
#include <ATen/ops/tanh.h>
#include <torch/utils.h>

#include "agents/dqn/td_loss_tensors.h"

namespace mnrl::agents {
Td3GradientSteps::Td3GradientSteps(OffPolicyNetworks& networks, nn::FlatParameters& parameters,
                                   TargetCritics& targets, nn::ContinuousActor target_actor,
                                   at::Tensor target_actor_values,
                                   torch::optim::Optimizer& critic_optimizer,
                                   torch::optim::Optimizer& actor_optimizer,
                                   const Options& options, GradientRangeHook hook, bool graphed,
                                   bool required)
    : OffPolicyGradientSteps(networks, parameters, targets, options.batch_size, kSums,
                             std::move(hook), graphed, required, "the TD3 gradient step"),
      target_actor_(std::move(target_actor)),
      target_actor_values_(std::move(target_actor_values)),
      critic_optimizer_(critic_optimizer),
      actor_optimizer_(actor_optimizer),
      options_(options) {}

void Td3GradientSteps::step(const replay::TransitionBatch& batch, const float* smoothing_noise,
                            bool with_actor) {
  if (options_.smoothing != (smoothing_noise != nullptr)) {
    throw std::logic_error("Td3GradientSteps: smoothing noise where the options say otherwise");
  }
  if (with_actor) {
    run(batch, nullptr, smoothing_noise, 1, {&critic_optimizer_, &actor_optimizer_});
    ++actor_steps_;
  } else {
    run(batch, nullptr, smoothing_noise, 0, {&critic_optimizer_});
  }
  ++steps_;
}

void Td3GradientSteps::device_step(int variant) {
  const Staged& batch = staged();
  parameters_.zero_grad();
  at::Tensor targets;
  {
    torch::NoGradGuard no_grad;
    at::Tensor next_actions = at::tanh(target_actor_->forward(batch.next_observations));
    if (options_.smoothing) {
      const double clip = options_.target_noise_clip;
      next_actions =
          at::clamp(next_actions + at::clamp(batch.next_noise, -clip, clip), -1.0, 1.0);
    }
    const std::size_t critics = networks_.critics().size();
    const at::Tensor next_q =
        min_q(targets_.networks(), critics, batch.next_observations, next_actions);
    targets = bootstrapped_target_tensors(batch.rewards, batch.bootstrap_discounts, next_q);
  }
  // SB3's TD3 loss: the sum of the critics' mean squared errors.
  const CriticLosses critics = critic_losses(targets);
  critics.loss.backward();
  average(networks_.critics_range());
  optimizer_step(critic_optimizer_);
  at::Tensor actor_loss;
  if (variant == 1) {
    // loss = -mean Q_1(s, mu(s)), under the updated critics.
    const at::Tensor mu = at::tanh(networks_.actor().ptr()->forward(batch.observations));
    actor_loss = -networks_.critics()[0].ptr()->forward(batch.observations, mu).mean();
    actor_loss.backward();
    average(networks_.actor_range());
    optimizer_step(actor_optimizer_);
    targets_.update(options_.tau);
    follow(target_actor_values_, networks_.actor_range().of(parameters_.values()), options_.tau);
  }

  torch::NoGradGuard no_grad;
  const std::int64_t count = critics.errors.size(0);
  sums().narrow(0, 0, count).add_(critics.mean_q.to(at::kDouble));
  sums().narrow(0, 2, count).add_(critics.errors.to(at::kDouble));
  if (actor_loss.defined()) sums().narrow(0, kActorLoss, 1).add_(actor_loss.detach().to(at::kDouble));
}

Statistics Td3GradientSteps::take_means() {
  const std::vector<double> sums = take_sums();
  const double steps = steps_ > 0 ? static_cast<double>(steps_) : 1.0;
  Statistics statistics{{"losses/qf1_values", sums[0] / steps}, {"losses/qf1_loss", sums[2] / steps}};
  if (networks_.critics().size() == 2) {
    statistics.emplace_back("losses/qf2_values", sums[1] / steps);
    statistics.emplace_back("losses/qf2_loss", sums[3] / steps);
    statistics.emplace_back("losses/qf_loss", (sums[2] + sums[3]) / steps);
  }
  if (actor_steps_ > 0) {
    statistics.emplace_back("losses/actor_loss", sums[kActorLoss] / static_cast<double>(actor_steps_));
  }
  steps_ = 0;
  actor_steps_ = 0;
  return statistics;
}

}  // namespace mnrl::agents
