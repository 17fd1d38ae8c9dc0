#include "nn/mlp.h"

#include <string>

#include <torch/nn/init.h>

namespace mnrl::nn {

MlpImpl::MlpImpl(MlpOptions options_) : options(std::move(options_)) {
  std::int64_t in = options.in_features();
  for (std::size_t i = 0; i < options.hidden_sizes().size(); ++i) {
    const std::int64_t out = options.hidden_sizes()[i];
    const std::string name = "linear" + std::to_string(i);
    if (options.noisy_sigma0() > 0) {
      noisy_layers_.push_back(register_module(name, NoisyLinear(in, out, options.noisy_sigma0())));
      layers_.push_back(noisy_layers_.back()->mean());
    } else {
      layers_.push_back(register_module(name, torch::nn::Linear(in, out)));
    }
    in = out;
  }
}

at::Tensor MlpImpl::forward(at::Tensor x) {
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    x = noisy_layers_.empty() ? layers_[i]->forward(x) : noisy_layers_[i]->forward(x);
    x = apply_activation(options.activation(), x);
  }
  return x;
}

std::int64_t MlpImpl::out_features() const {
  return options.hidden_sizes().empty() ? options.in_features() : options.hidden_sizes().back();
}

void orthogonal_init(torch::nn::Linear& layer, double gain) {
  torch::nn::init::orthogonal_(layer->weight, gain);
  torch::nn::init::zeros_(layer->bias);
}

}  // namespace mnrl::nn
