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
#include "nn/noisy_linear.h"

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
  // Dueling head (Wang et al. 2016): Q = V + A - mean_a A, from one trunk (per atom).
  TORCH_ARG(bool, dueling) = false;
  // Outputs per action: 1, a Q-value; more, a distribution of returns (C51's logits over its
  // support, QR-DQN's quantiles).
  TORCH_ARG(std::int64_t, atoms) = 1;
  // > 0: IQN (Dabney et al. 2018a): the quantile fractions tau enter as cos(pi i tau), i = 1 to
  // this many (as Dopamine and PFRL: the paper's i = 0 is a constant the bias already gives),
  // through a linear layer + ReLU, multiplied into the state's features before the last hidden
  // layer (at the heads without hidden layers); forward(observations, fractions).
  TORCH_ARG(std::int64_t, quantile_embedding) = 0;
  // > 0: the trunk's and the heads' layers are NoisyLinear (noisy nets), sigmas from this.
  TORCH_ARG(double, noisy_sigma0) = 0.0;
  // On a GPU: matmuls and convolutions in bfloat16 (nn::Bf16Autocast), outputs in float32.
  TORCH_ARG(bool, bf16_autocast) = false;
};

// Observation -> for every discrete action a Q-value [batch, num_actions], or atoms() values of
// its return distribution [batch, num_actions, atoms], over an MLP trunk (after a convolutional
// encoder, for images). Layers keep LibTorch's default initialization, as SB3's DQN does.
class QNetworkImpl : public torch::nn::Module {
 public:
  explicit QNetworkImpl(QNetworkOptions options);

  // Q-values, or [batch, num_actions, atoms] where atoms() > 1. Not for IQN (std::logic_error).
  at::Tensor forward(const at::Tensor& observations);
  // IQN: the quantiles of each action's return at `fractions` [batch, N] (taus in [0, 1]),
  // [batch, num_actions, N].
  at::Tensor forward(const at::Tensor& observations, const at::Tensor& fractions);

  // IQN: the embedding phi(tau) of `fractions` [..., N], [..., N, features] (what
  // forward(observations, fractions) multiplies the state's features by).
  at::Tensor fraction_features(const at::Tensor& fractions);

  // The layers, for QNetworkPass and export. encoder() is empty without one, value_head()
  // unless dueling; with noisy layers these are their means. For IQN the trunk ends before
  // the mixing (mixed_layer() follows it).
  const ConvEncoder& encoder() const { return encoder_; }
  const Mlp& trunk() const { return trunk_; }
  const torch::nn::Linear& advantage_head() const { return advantage_head_; }
  const torch::nn::Linear& value_head() const { return value_head_; }
  // The heads themselves where noisy (empty holders otherwise).
  const NoisyLinear& noisy_advantage_head() const { return noisy_advantage_head_; }
  const NoisyLinear& noisy_value_head() const { return noisy_value_head_; }
  const Mlp& mixed_layer() const { return mixed_layer_; }

  // Noisy nets: the noisy layers (trunk, mixed layer, heads, in that order), their noise size,
  // and new noise for all of them, [noise_size()] on the network's device.
  const std::vector<NoisyLinear>& noisy_layers() const { return noisy_layers_; }
  std::int64_t noise_size() const { return nn::noise_size(noisy_layers_); }
  void set_noise(const at::Tensor& noise) { set_layer_noise(noisy_layers_, noise); }

  QNetworkOptions options;

 private:
  // [..., num_actions, atoms] of the trunk's `features` [..., features].
  at::Tensor heads(const at::Tensor& features);
  at::Tensor state_features(const at::Tensor& observations);
  // A head layer (noisy where the network is), registered as `name`; returns its means.
  torch::nn::Linear add_head(const std::string& name, std::int64_t in, std::int64_t out,
                             NoisyLinear& noisy);

  ConvEncoder encoder_{nullptr};
  Mlp trunk_{nullptr};
  torch::nn::Linear cosine_embedding_{nullptr};  // IQN only
  Mlp mixed_layer_{nullptr};                     // IQN only
  at::Tensor cosine_frequencies_;                // IQN: pi * i, i = 1..quantile_embedding
  torch::nn::Linear advantage_head_{nullptr};    // Q itself when not dueling
  torch::nn::Linear value_head_{nullptr};        // dueling only
  NoisyLinear noisy_advantage_head_{nullptr}, noisy_value_head_{nullptr};
  std::vector<NoisyLinear> noisy_layers_;
};
TORCH_MODULE(QNetwork);

// The heads' outputs [..., num_actions * atoms] (and the value head's [..., atoms] where
// dueling, else undefined) as [..., num_actions, atoms] values: Q = V + A - mean_a A (per
// atom) where dueling, else A.
at::Tensor combine_q_heads(const at::Tensor& advantages, const at::Tensor& values,
                           std::int64_t num_actions, std::int64_t atoms);

}  // namespace mnrl::nn
