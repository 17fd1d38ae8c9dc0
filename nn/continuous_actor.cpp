#include "nn/continuous_actor.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/clamp.h>
#include <ATen/ops/exp.h>
#include <ATen/ops/full.h>
#include <ATen/ops/log.h>
#include <ATen/ops/tanh.h>

#include <cmath>
#include <stdexcept>

#include "nn/continuous_actor_pass.h"
#include "nn/precision.h"

namespace mnrl::nn {

ContinuousActorImpl::ContinuousActorImpl(ContinuousActorOptions options_)
    : options(std::move(options_)) {
  trunk_ = register_module("trunk", Mlp(MlpOptions(options.observation_size(), options.hidden_sizes())
                                            .activation(options.activation())));
  const std::int64_t features = trunk_->out_features();
  mean_head_ = register_module("mean_head", torch::nn::Linear(features, options.action_size()));
  if (options.stochastic() && options.state_dependent_noise()) {
    sde_log_std_ = register_parameter(
        "log_std", at::full({features, options.full_std() ? options.action_size() : 1},
                            options.log_std_init()));
  } else if (options.stochastic()) {
    log_std_head_ =
        register_module("log_std_head", torch::nn::Linear(features, options.action_size()));
  }
}

at::Tensor ContinuousActorImpl::forward(const at::Tensor& observations) {
  const Bf16Autocast autocast(options.bf16_autocast());
  return mean_head_->forward(trunk_->forward(observations)).to(at::kFloat);
}

ContinuousActorImpl::Sample ContinuousActorImpl::sample(const at::Tensor& observations,
                                                        const at::Tensor& unit_noise) {
  if (!log_std_head_) throw std::logic_error("this actor has no log-std head");
  at::Tensor mean, raw_log_std;
  {
    const Bf16Autocast autocast(options.bf16_autocast());
    const at::Tensor features = trunk_->forward(observations);
    mean = mean_head_->forward(features).to(at::kFloat);
    raw_log_std = log_std_head_->forward(features).to(at::kFloat);
  }
  const at::Tensor log_std =
      at::clamp(raw_log_std, ContinuousActorPass::kLogStdMin, ContinuousActorPass::kLogStdMax);
  const at::Tensor actions = at::tanh(mean + at::exp(log_std) * unit_noise);
  // log N(u; mean, std) with (u - mean) / std written as the noise (the same function of the
  // parameters, without the cancellation of u - mean at tiny std), then the tanh's change of
  // variables.
  const double half_log_two_pi = 0.5 * std::log(2.0 * M_PI);
  const at::Tensor gaussian = -0.5 * unit_noise * unit_noise - log_std - half_log_two_pi;
  const at::Tensor squash = at::log(1.0 - actions * actions + ContinuousActorPass::kSquashEpsilon);
  return {actions, (gaussian - squash).sum(1)};
}

}  // namespace mnrl::nn
