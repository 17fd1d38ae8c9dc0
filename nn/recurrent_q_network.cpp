#include "nn/recurrent_q_network.h"

#include <ATen/TensorOperators.h>

namespace mnrl::nn {

RecurrentQNetworkImpl::RecurrentQNetworkImpl(RecurrentQNetworkOptions options_)
    : options(std::move(options_)) {
  std::int64_t features = options.observation_size();
  if (options.encoder()) {
    encoder_ = register_module("encoder", ConvEncoder(*options.encoder()));
    features = encoder_->out_features();
  }
  core_ = register_module(
      "core",
      RecurrentCore(RecurrentCoreOptions(options.memory()).input_size(features).shared(true)));
  trunk_ = register_module("trunk",
                           Mlp(MlpOptions(options.memory().hidden_size(), options.hidden_sizes())
                                   .activation(options.activation())));
  advantage_head_ = register_module(
      "advantage_head", torch::nn::Linear(trunk_->out_features(), options.num_actions()));
  if (options.dueling()) {
    value_head_ = register_module("value_head", torch::nn::Linear(trunk_->out_features(), 1));
  }
}

at::Tensor RecurrentQNetworkImpl::forward(const at::Tensor& observations,
                                          const at::Tensor& episode_starts, const at::Tensor& state,
                                          at::Tensor* state_out) {
  const std::int64_t batch = state.size(0);
  const at::Tensor inputs = encoder_.is_empty() ? observations : encoder_->forward(observations);
  const std::int64_t steps = inputs.size(0) / batch;
  const RecurrentOutput memory = core_->forward(inputs.view({steps, batch, inputs.size(1)}),
                                                episode_starts.view({steps, batch}), state);
  if (state_out) *state_out = memory.state;
  const at::Tensor features = trunk_->forward(memory.policy_features.reshape({steps * batch, -1}));
  const at::Tensor advantages = advantage_head_->forward(features);
  if (value_head_.is_empty()) return advantages;
  return value_head_->forward(features) + advantages - advantages.mean(1, /*keepdim=*/true);
}

}  // namespace mnrl::nn
