#pragma once

#include <torch/arg.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <vector>

#include "nn/activation.h"
#include "nn/noisy_linear.h"

namespace mnrl::nn {

struct MlpOptions {
  MlpOptions(std::int64_t in_features, std::vector<std::int64_t> hidden_sizes)
      : in_features_(in_features), hidden_sizes_(std::move(hidden_sizes)) {}

  TORCH_ARG(std::int64_t, in_features);
  // Width of each hidden layer; every layer is followed by the activation.
  TORCH_ARG(std::vector<std::int64_t>, hidden_sizes);
  TORCH_ARG(Activation, activation) = Activation::tanh;
  // > 0: every layer a NoisyLinear whose sigmas start at noisy_sigma0 / sqrt(inputs).
  TORCH_ARG(double, noisy_sigma0) = 0.0;
};

// Linear + activation layers: in_features -> hidden_sizes[0] -> ... -> hidden_sizes.back().
// With no hidden sizes it is the identity (out_features() == in_features).
class MlpImpl : public torch::nn::Module {
 public:
  explicit MlpImpl(MlpOptions options);

  at::Tensor forward(at::Tensor x);
  std::int64_t out_features() const;
  // The linear layers, for initialization (the means of noisy layers).
  const std::vector<torch::nn::Linear>& layers() const { return layers_; }
  // The layers themselves where noisy (empty otherwise).
  const std::vector<NoisyLinear>& noisy_layers() const { return noisy_layers_; }

  MlpOptions options;

 private:
  std::vector<torch::nn::Linear> layers_;
  std::vector<NoisyLinear> noisy_layers_;
};
TORCH_MODULE(Mlp);

// Orthogonal weights scaled by `gain` and zero biases, as SB3 and CleanRL initialize.
void orthogonal_init(torch::nn::Linear& layer, double gain);

}  // namespace mnrl::nn
