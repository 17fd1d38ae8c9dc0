#include "nn/continuous_actor.h"

#include <stdexcept>

namespace mnrl::nn {

ContinuousActorImpl::ContinuousActorImpl(ContinuousActorOptions options_)
    : options(std::move(options_)) {
  trunk_ = register_module("trunk", Mlp(MlpOptions(options.observation_size(), options.hidden_sizes())
                                            .activation(options.activation())));
  const std::int64_t features = trunk_->out_features();
  mean_head_ = register_module("mean_head", torch::nn::Linear(features, options.action_size()));
  if (options.stochastic()) {
    log_std_head_ =
        register_module("log_std_head", torch::nn::Linear(features, options.action_size()));
  }
}

at::Tensor ContinuousActorImpl::forward(const at::Tensor& observations) {
  return mean_head_->forward(trunk_->forward(observations));
}

at::Tensor ContinuousActorImpl::raw_log_std(const at::Tensor& observations) {
  if (!options.stochastic()) throw std::logic_error("a deterministic actor has no log-std head");
  return log_std_head_->forward(trunk_->forward(observations));
}

}  // namespace mnrl::nn
