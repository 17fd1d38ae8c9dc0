#include "nn/actor_critic.h"

#include <cmath>

#include <ATen/ops/full.h>

#include "nn/categorical.h"
#include "nn/diag_gaussian.h"
#include "nn/squashed_diag_gaussian.h"

namespace mnrl::nn {

ActorCriticImpl::ActorCriticImpl(ActorCriticOptions options_) : options(std::move(options_)) {
  const MlpOptions trunk_options = MlpOptions(options.observation_size(), options.hidden_sizes())
                                       .activation(options.activation());
  policy_trunk_ = register_module("policy_trunk", Mlp(trunk_options));
  if (!options.shared_trunk()) value_trunk_ = register_module("value_trunk", Mlp(trunk_options));
  const std::int64_t features = policy_trunk_->out_features();
  policy_head_ = register_module("policy_head", torch::nn::Linear(features, options.action_size()));
  value_head_ = register_module("value_head", torch::nn::Linear(features, 1));

  if (options.orthogonal_init()) {
    const double hidden_gain = std::sqrt(2.0);
    for (auto* trunk : {&policy_trunk_, &value_trunk_}) {
      if (trunk->is_empty()) continue;
      for (auto layer : (*trunk)->layers()) orthogonal_init(layer, hidden_gain);
    }
    orthogonal_init(policy_head_, 0.01);
    orthogonal_init(value_head_, 1.0);
  }
  if (options.continuous()) {
    log_std_ = register_parameter(
        "log_std", at::full({options.action_size()}, options.log_std_init(), at::kFloat));
  }
}

std::unique_ptr<ActionDistribution> ActorCriticImpl::distribution(const at::Tensor& policy) const {
  if (!options.continuous()) return std::make_unique<Categorical>(policy);
  if (options.squash()) return std::make_unique<SquashedDiagGaussian>(policy, log_std_);
  return std::make_unique<DiagGaussian>(policy, log_std_);
}

PolicyValue ActorCriticImpl::forward(const at::Tensor& observations) {
  const at::Tensor policy_features = policy_trunk_->forward(observations);
  const at::Tensor value_features =
      value_trunk_.is_empty() ? policy_features : value_trunk_->forward(observations);
  return {policy_head_->forward(policy_features), value_head_->forward(value_features).squeeze(-1)};
}

at::Tensor ActorCriticImpl::value(const at::Tensor& observations) {
  const at::Tensor features =
      value_trunk_.is_empty() ? policy_trunk_->forward(observations)
                              : value_trunk_->forward(observations);
  return value_head_->forward(features).squeeze(-1);
}

}  // namespace mnrl::nn
