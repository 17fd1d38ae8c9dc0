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
#include "nn/recurrent_core.h"

namespace mnrl::nn {

struct RecurrentQNetworkOptions {
  RecurrentQNetworkOptions(std::int64_t observation_size, std::int64_t num_actions,
                           RecurrentCoreOptions memory)
      : observation_size_(observation_size), num_actions_(num_actions), memory_(memory) {}

  TORCH_ARG(std::int64_t, observation_size);
  TORCH_ARG(std::int64_t, num_actions);
  // One LSTM or GRU (its `shared` is ignored: a Q-network has one output stream).
  TORCH_ARG(RecurrentCoreOptions, memory);
  TORCH_ARG(std::optional<ConvEncoderOptions>, encoder) = std::nullopt;  // images
  TORCH_ARG(std::vector<std::int64_t>, hidden_sizes) = std::vector<std::int64_t>{64};
  TORCH_ARG(Activation, activation) = Activation::relu;
  TORCH_ARG(bool, dueling) = false;  // Q = V + A - mean_a A
};

// R2D2's Q-network (Kapturowski et al. 2019): observation -> (convolutional encoder, for
// images) -> LSTM or GRU -> MLP trunk -> Q-values of every discrete action (dueling heads or
// one). Its memory travels as RecurrentCore's does, one float row per env.
class RecurrentQNetworkImpl : public torch::nn::Module {
 public:
  explicit RecurrentQNetworkImpl(RecurrentQNetworkOptions options);

  std::int64_t state_size() const { return core_->state_size(); }

  // Q-values [steps * batch, num_actions] of `observations` [steps * batch, ...] laid out
  // [step][sequence], from `state` [batch, state_size()]; `episode_starts` [steps * batch]
  // (1 where the memory restarts before that step). The memory after the last step goes to
  // `state_out` when given.
  at::Tensor forward(const at::Tensor& observations, const at::Tensor& episode_starts,
                     const at::Tensor& state, at::Tensor* state_out = nullptr);

  // The layers, for export.
  const ConvEncoder& encoder() const { return encoder_; }
  const RecurrentCore& core() const { return core_; }
  const Mlp& trunk() const { return trunk_; }
  const torch::nn::Linear& advantage_head() const { return advantage_head_; }
  const torch::nn::Linear& value_head() const { return value_head_; }  // dueling only

  RecurrentQNetworkOptions options;

 private:
  ConvEncoder encoder_{nullptr};
  RecurrentCore core_{nullptr};
  Mlp trunk_{nullptr};
  torch::nn::Linear advantage_head_{nullptr};  // Q itself when not dueling
  torch::nn::Linear value_head_{nullptr};
};
TORCH_MODULE(RecurrentQNetwork);

}  // namespace mnrl::nn
