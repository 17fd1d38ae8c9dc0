#include "nn/continuous_q_network.h"

#include <ATen/ops/cat.h>

#include "nn/precision.h"

namespace mnrl::nn {

ContinuousQNetworkImpl::ContinuousQNetworkImpl(ContinuousQNetworkOptions options_)
    : options(std::move(options_)) {
  trunk_ = register_module(
      "trunk", Mlp(MlpOptions(options.observation_size() + options.action_size(),
                              options.hidden_sizes())
                       .activation(options.activation())));
  head_ = register_module("head", torch::nn::Linear(trunk_->out_features(), 1));
}

at::Tensor ContinuousQNetworkImpl::forward(const at::Tensor& observations,
                                           const at::Tensor& actions) {
  const Bf16Autocast autocast(options.bf16_autocast());
  return head_->forward(trunk_->forward(at::cat({observations, actions}, 1))).to(at::kFloat);
}

}  // namespace mnrl::nn
