#include "agents/sac/sac_gradient_steps.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/exp.h>
#include <ATen/ops/full.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/zeros_like.h>
#include <torch/utils.h>

#include "agents/dqn/td_loss_tensors.h"

namespace mnrl::agents {
SacGradientSteps::SacGradientSteps(OffPolicyNetworks& networks, nn::FlatParameters& parameters,
                                   TargetCritics& targets, Optimizers optimizers,
                                   double fixed_alpha, double target_entropy, double tau,
                                   std::int64_t batch_size, GradientRangeHook hook, bool graphed,
                                   bool required)
    : OffPolicyGradientSteps(networks, parameters, targets, batch_size, kSums, std::move(hook),
                             graphed, required, "the SAC gradient step"),
      optimizers_(optimizers),
      fixed_alpha_(fixed_alpha),
      target_entropy_(target_entropy),
      tau_(tau) {}

void SacGradientSteps::step(const replay::TransitionBatch& batch, const float* noise,
                            const float* next_noise, bool update_targets) {
  if (optimizers_.alpha) {
    run(batch, noise, next_noise, update_targets ? 1 : 0,
        {&optimizers_.critic, &optimizers_.actor, optimizers_.alpha});
  } else {
    run(batch, noise, next_noise, update_targets ? 1 : 0,
        {&optimizers_.critic, &optimizers_.actor});
  }
  ++steps_;
}

void SacGradientSteps::device_step(int variant) {
  const Staged& batch = staged();
  parameters_.zero_grad();
  nn::ContinuousActorImpl& actor = *networks_.actor().ptr();
  // alpha from before its own step, for the targets and the actor loss.
  const at::Tensor& log_alpha = networks_.log_alpha();
  const at::Tensor alpha =
      log_alpha.defined()
          ? at::exp(log_alpha.detach())
          : at::full({1}, fixed_alpha_, at::TensorOptions().device(batch.rewards.device()));
  const auto [actions_pi, log_probs] = actor.sample(batch.observations, batch.noise);

  at::Tensor targets;
  {
    torch::NoGradGuard no_grad;
    const auto [next_actions, next_log_probs] = actor.sample(batch.next_observations,
                                                             batch.next_noise);
    const at::Tensor next_q =
        min_q(targets_.networks(), 2, batch.next_observations, next_actions);
    targets = bootstrapped_target_tensors(batch.rewards, batch.bootstrap_discounts,
                                          next_q - alpha * next_log_probs);
  }
  const CriticLosses critics = critic_losses(targets);
  (0.5 * critics.loss).backward();
  average(networks_.critics_range());
  optimizer_step(optimizers_.critic);

  // Under the updated critics.
  const at::Tensor q_pi = min_q(networks_.critics(), 2, batch.observations, actions_pi);
  const at::Tensor actor_loss = (alpha * log_probs - q_pi).mean();
  at::Tensor alpha_loss = at::zeros_like(actor_loss);
  if (log_alpha.defined()) {
    alpha_loss = -(log_alpha * (log_probs.detach() + target_entropy_)).mean();
  }
  (actor_loss + alpha_loss).backward();
  const OffPolicyNetworks::Range actor_range = networks_.actor_range();
  average({actor_range.offset, actor_range.count + networks_.log_alpha_range().count});
  optimizer_step(optimizers_.actor);
  if (optimizers_.alpha) optimizer_step(*optimizers_.alpha);
  if (variant == 1) targets_.update(tau_);

  torch::NoGradGuard no_grad;
  sums().add_(at::cat({critics.mean_q, critics.errors,
                       at::stack({actor_loss.detach(), alpha.squeeze(0), alpha_loss.detach()})})
                  .to(at::kDouble));
}

Statistics SacGradientSteps::take_means() {
  const std::vector<double> sums = take_sums();
  const double steps = steps_ > 0 ? static_cast<double>(steps_) : 1.0;
  steps_ = 0;
  const auto mean = [&](Sum sum) { return sums[sum] / steps; };
  Statistics statistics{{"losses/qf1_values", mean(kQ1)},
                        {"losses/qf2_values", mean(kQ2)},
                        {"losses/qf1_loss", mean(kLoss1)},
                        {"losses/qf2_loss", mean(kLoss2)},
                        {"losses/qf_loss", 0.5 * (mean(kLoss1) + mean(kLoss2))},
                        {"losses/actor_loss", mean(kActorLoss)},
                        {"losses/alpha", mean(kAlpha)}};
  if (networks_.has_log_alpha()) statistics.emplace_back("losses/alpha_loss", mean(kAlphaLoss));
  return statistics;
}

}  // namespace mnrl::agents
