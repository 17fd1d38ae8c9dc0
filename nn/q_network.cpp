#include "nn/q_network.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/cos.h>
#include <ATen/ops/relu.h>

#include <cmath>
#include <stdexcept>

#include "nn/precision.h"

namespace mnrl::nn {

QNetworkImpl::QNetworkImpl(QNetworkOptions options_) : options(std::move(options_)) {
  std::int64_t trunk_inputs = options.observation_size();
  if (options.encoder()) {
    encoder_ = register_module("encoder", ConvEncoder(*options.encoder()));
    trunk_inputs = encoder_->out_features();
  }
  std::vector<std::int64_t> trunk_sizes = options.hidden_sizes(), mixed_sizes;
  const bool implicit = options.quantile_embedding() > 0;
  if (implicit && !trunk_sizes.empty()) {
    mixed_sizes.push_back(trunk_sizes.back());
    trunk_sizes.pop_back();
  }
  const auto mlp = [&](std::int64_t in, std::vector<std::int64_t> sizes) {
    return Mlp(MlpOptions(in, std::move(sizes))
                   .activation(options.activation())
                   .noisy_sigma0(options.noisy_sigma0()));
  };
  trunk_ = register_module("trunk", mlp(trunk_inputs, trunk_sizes));
  std::int64_t features = trunk_->out_features();
  noisy_layers_ = trunk_->noisy_layers();
  if (implicit) {
    cosine_embedding_ = register_module("cosine_embedding",
                                        torch::nn::Linear(options.quantile_embedding(), features));
    cosine_frequencies_ = register_buffer(
        "cosine_frequencies", (at::arange(options.quantile_embedding(), at::kFloat) + 1) * M_PI);
    mixed_layer_ = register_module("mixed_layer", mlp(features, mixed_sizes));
    features = mixed_layer_->out_features();
    for (const NoisyLinear& layer : mixed_layer_->noisy_layers()) noisy_layers_.push_back(layer);
  }
  advantage_head_ = add_head("advantage_head", features, options.num_actions() * options.atoms(),
                             noisy_advantage_head_);
  if (options.dueling()) {
    value_head_ = add_head("value_head", features, options.atoms(), noisy_value_head_);
  }
}

torch::nn::Linear QNetworkImpl::add_head(const std::string& name, std::int64_t in, std::int64_t out,
                                         NoisyLinear& noisy) {
  if (options.noisy_sigma0() <= 0) return register_module(name, torch::nn::Linear(in, out));
  noisy = register_module(name, NoisyLinear(in, out, options.noisy_sigma0()));
  noisy_layers_.push_back(noisy);
  return noisy->mean();
}

at::Tensor QNetworkImpl::state_features(const at::Tensor& observations) {
  return trunk_->forward(encoder_.is_empty() ? observations : encoder_->forward(observations));
}

at::Tensor QNetworkImpl::heads(const at::Tensor& features) {
  const auto head = [&](torch::nn::Linear linear, NoisyLinear noisy) {
    // The heads' outputs in float32 (a no-op unless in bf16), and what follows them.
    return (noisy ? noisy->forward(features) : linear->forward(features)).to(at::kFloat);
  };
  return combine_q_heads(head(advantage_head_, noisy_advantage_head_),
                         options.dueling() ? head(value_head_, noisy_value_head_) : at::Tensor(),
                         options.num_actions(), options.atoms());
}

at::Tensor combine_q_heads(const at::Tensor& advantages, const at::Tensor& values,
                           std::int64_t num_actions, std::int64_t atoms) {
  std::vector<std::int64_t> shape = advantages.sizes().vec();
  shape.back() = num_actions;
  shape.push_back(atoms);
  const at::Tensor per_action = advantages.view(shape);
  if (!values.defined()) return per_action;
  shape[shape.size() - 2] = 1;
  // Subtracting the mean advantage makes V and A identifiable (Wang et al., eq. 9).
  return values.view(shape) + per_action - per_action.mean(-2, /*keepdim=*/true);
}

at::Tensor QNetworkImpl::forward(const at::Tensor& observations) {
  if (options.quantile_embedding() > 0) {
    throw std::logic_error("QNetwork: an IQN network takes quantile fractions as well");
  }
  const Bf16Autocast autocast(options.bf16_autocast());
  const at::Tensor values = heads(state_features(observations));
  return options.atoms() == 1 ? values.squeeze(-1) : values;
}

at::Tensor QNetworkImpl::forward(const at::Tensor& observations, const at::Tensor& fractions) {
  if (options.quantile_embedding() <= 0) {
    throw std::logic_error("QNetwork: only an IQN network takes quantile fractions");
  }
  const Bf16Autocast autocast(options.bf16_autocast());
  const at::Tensor psi = state_features(observations);  // [B, d]
  const at::Tensor mixed = mixed_layer_->forward(psi.unsqueeze(1) * fraction_features(fractions));
  return heads(mixed).squeeze(-1).transpose(1, 2);  // [B, N, h] -> [B, A, N]
}

at::Tensor QNetworkImpl::fraction_features(const at::Tensor& fractions) {
  return at::relu(
      cosine_embedding_->forward(at::cos(fractions.unsqueeze(-1) * cosine_frequencies_)));
}

}  // namespace mnrl::nn
