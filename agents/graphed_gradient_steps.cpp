#include "agents/graphed_gradient_steps.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/zeros.h>
#include <torch/utils.h>

#include <stdexcept>

#include "nn/gradient_clipping.h"

namespace mnrl::agents {

GraphedGradientSteps::GraphedGradientSteps(nn::ActorCritic model, nn::FlatParameters& parameters,
                                           nn::CapturableAdam& adam, bool required)
    : model_(std::move(model)), parameters_(parameters), adam_(adam), required_(required) {}

const RolloutBatch& GraphedGradientSteps::stage(const RolloutBatch& rollout) {
  const auto into = [this](at::Tensor& fixed, const at::Tensor& fresh) {
    if (!fixed.defined() || !fixed.sizes().equals(fresh.sizes())) {
      fixed = at::empty_like(fresh);
      steps_.clear();  // captured over the old tensors
    }
    fixed.copy_(fresh);
  };
  into(staged_.observations, rollout.observations);
  into(staged_.actions, rollout.actions);
  into(staged_.log_probs, rollout.log_probs);
  into(staged_.values, rollout.values);
  into(staged_.advantages, rollout.advantages);
  into(staged_.returns, rollout.returns);
  if (!loss_sums_.defined()) {
    loss_sums_ = at::zeros({LossSums::kParts}, staged_.returns.options().dtype(at::kDouble));
  } else {
    loss_sums_.zero_();
  }
  return staged_;
}

const at::Tensor& GraphedGradientSteps::rows_of(const Minibatch& batch) {
  if (!host_order_.is_same(batch.order)) {
    host_order_ = batch.order;
    order_ = batch.order.to(staged_.returns.device());  // once per epoch
  }
  auto [slot, fresh] = rows_.try_emplace(batch.count);
  if (fresh) slot->second = at::empty({batch.count}, order_.options());
  slot->second.copy_(order_.slice(0, batch.start, batch.start + batch.count));
  return slot->second;
}

void GraphedGradientSteps::step(const RolloutBatch& rollout, const Minibatch& batch,
                                const ActorCriticLossOptions& options, double max_grad_norm,
                                LossSums& sums) {
  if (!rollout.returns.is_same(staged_.returns)) {
    throw std::logic_error("GraphedGradientSteps::step: a rollout that stage() did not return");
  }
  const std::int64_t count = batch.order.defined() ? batch.count : 0;
  if (count > 0) rows_of(batch);
  const Constants constants{options.clip_range, options.clip_range_vf,       options.vf_coef,
                            options.ent_coef,   options.normalize_advantage, max_grad_norm};
  auto found = steps_.find(count);
  if (found == steps_.end()) {
    found = steps_
                .emplace(count, Captured{constants, make_step(count, options, max_grad_norm,
                                                              /*warmed_up=*/false)})
                .first;
  } else if (found->second.constants != constants) {
    found->second = {constants, make_step(count, options, max_grad_norm, /*warmed_up=*/true)};
  }
  adam_.prepare_step();
  found->second.step.run();
  sums.add_on_device(loss_sums_);
}

nn::GraphedStep GraphedGradientSteps::make_step(std::int64_t count,
                                                const ActorCriticLossOptions& options,
                                                double max_grad_norm, bool warmed_up) {
  // The eager autograd step's work (ActorCriticAgent::gradient_step), in its order.
  auto step = [this, count, options, max_grad_norm] {
    const RolloutBatch batch = count == 0 ? staged_ : staged_.select(rows_.at(count));
    parameters_.zero_grad();
    const ActorCriticLoss loss = actor_critic_loss(*model_, batch, options);
    loss.total.backward();
    torch::NoGradGuard no_grad;
    const at::Tensor ratio_change = loss.log_ratio.exp() - 1;
    const at::Tensor clip_fraction =
        options.clip_range ? (ratio_change.abs() > *options.clip_range).to(at::kFloat).mean()
                           : at::zeros({}, ratio_change.options());
    // Summed in double, as the eager step's parts are on the host.
    loss_sums_.add_(
        at::stack({loss.policy_loss, loss.value_loss, loss.entropy, (-loss.log_ratio).mean(),
                   (ratio_change - loss.log_ratio).mean(), clip_fraction})
            .to(at::kDouble));
    nn::clip_gradient_norm_on_device(parameters_.values(), max_grad_norm);
    adam_.update();
  };
  return nn::GraphedStep(std::move(step), "the actor-critic gradient step",
                         parameters_.values().device(), required_,
                         warmed_up ? 0 : nn::GraphedStep::kEagerCalls);
}

}  // namespace mnrl::agents
