#include "nn/q_network.h"

#include <ATen/TensorOperators.h>

#include "nn/precision.h"

namespace mnrl::nn {

QNetworkImpl::QNetworkImpl(QNetworkOptions options_) : options(std::move(options_)) {
  std::int64_t trunk_inputs = options.observation_size();
  if (options.encoder()) {
    encoder_ = register_module("encoder", ConvEncoder(*options.encoder()));
    trunk_inputs = encoder_->out_features();
  }
  trunk_ = register_module(
      "trunk",
      Mlp(MlpOptions(trunk_inputs, options.hidden_sizes()).activation(options.activation())));
  const std::int64_t features = trunk_->out_features();
  advantage_head_ =
      register_module("advantage_head", torch::nn::Linear(features, options.num_actions()));
  if (options.dueling())
    value_head_ = register_module("value_head", torch::nn::Linear(features, 1));
}

at::Tensor QNetworkImpl::forward(const at::Tensor& observations) {
  const Bf16Autocast autocast(options.bf16_autocast());
  const at::Tensor features =
      trunk_->forward(encoder_.is_empty() ? observations : encoder_->forward(observations));
  // The heads' outputs in float32 (a no-op unless in bf16), and what follows them.
  const at::Tensor advantages = advantage_head_->forward(features).to(at::kFloat);
  if (!options.dueling()) return advantages;
  // Subtracting the mean advantage makes V and A identifiable (Wang et al., eq. 9).
  return value_head_->forward(features).to(at::kFloat) + advantages -
         advantages.mean(-1, /*keepdim=*/true);
}

}  // namespace mnrl::nn
