#pragma once

#include <torch/arg.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "nn/conv_encoder.h"
#include "nn/mlp.h"

namespace mnrl::nn {

struct QNetworkOptions {
  QNetworkOptions(std::int64_t observation_size, std::int64_t num_actions)
      : observation_size_(observation_size), num_actions_(num_actions) {}

  TORCH_ARG(std::int64_t, observation_size);
  TORCH_ARG(std::int64_t, num_actions);
  // Images: a convolutional encoder whose features feed the trunk.
  TORCH_ARG(std::optional<ConvEncoderOptions>, encoder) = std::nullopt;
  TORCH_ARG(std::vector<std::int64_t>, hidden_sizes) = std::vector<std::int64_t>{64, 64};
  TORCH_ARG(Activation, activation) = Activation::relu;  // SB3's DQN default
  // Dueling head (Wang et al. 2016): Q = V + A - mean_a A, from one trunk.
  TORCH_ARG(bool, dueling) = false;
  // On a GPU: matmuls and convolutions in bfloat16 (nn::Bf16Autocast), Q-values in float32.
  TORCH_ARG(bool, bf16_autocast) = false;
};

// Observation -> Q-values of every discrete action, [batch, num_actions], over an MLP trunk
// (after a convolutional encoder, for images). Layers keep LibTorch's default initialization,
// as SB3's DQN does.
class QNetworkImpl : public torch::nn::Module {
 public:
  explicit QNetworkImpl(QNetworkOptions options);

  at::Tensor forward(const at::Tensor& observations);

  // The layers, for QNetworkPass (networks without an encoder). encoder() is empty without
  // one, value_head() unless dueling.
  const ConvEncoder& encoder() const { return encoder_; }
  const Mlp& trunk() const { return trunk_; }
  const torch::nn::Linear& advantage_head() const { return advantage_head_; }
  const torch::nn::Linear& value_head() const { return value_head_; }

  QNetworkOptions options;

 private:
  ConvEncoder encoder_{nullptr};
  Mlp trunk_{nullptr};
  torch::nn::Linear advantage_head_{nullptr};  // Q itself when not dueling
  torch::nn::Linear value_head_{nullptr};      // dueling only
};
TORCH_MODULE(QNetwork);

}  // namespace mnrl::nn
