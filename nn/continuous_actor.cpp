#include "nn/continuous_actor.h"

#include <stdexcept>

#include <ATen/ops/full.h>

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
  return mean_head_->forward(trunk_->forward(observations));
}

at::Tensor ContinuousActorImpl::raw_log_std(const at::Tensor& observations) {
  if (!log_std_head_) throw std::logic_error("this actor has no log-std head");
  return log_std_head_->forward(trunk_->forward(observations));
}

}  // namespace mnrl::nn
