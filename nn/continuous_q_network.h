#pragma once

#include <cstdint>
#include <vector>

#include <torch/arg.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include "nn/mlp.h"

namespace mnrl::nn {

struct ContinuousQNetworkOptions {
  ContinuousQNetworkOptions(std::int64_t observation_size, std::int64_t action_size)
      : observation_size_(observation_size), action_size_(action_size) {}

  TORCH_ARG(std::int64_t, observation_size);
  TORCH_ARG(std::int64_t, action_size);
  TORCH_ARG(std::vector<std::int64_t>, hidden_sizes) = std::vector<std::int64_t>{256, 256};
  TORCH_ARG(Activation, activation) = Activation::relu;  // SB3's SAC/TD3 default
  // forward() in bfloat16 under CUDA autocast (train.precision: bf16), with a float32 output.
  TORCH_ARG(bool, bf16_autocast) = false;
};

// A critic of continuous actions, Q(s, a): the observation and the action concatenated,
// [batch, observation_size + action_size], through an MLP trunk to one value, [batch, 1]
// (SB3's ContinuousCritic, one of its q_networks). Layers keep LibTorch's default
// initialization, as SB3's SAC and TD3 do.
class ContinuousQNetworkImpl : public torch::nn::Module {
 public:
  explicit ContinuousQNetworkImpl(ContinuousQNetworkOptions options);

  at::Tensor forward(const at::Tensor& observations, const at::Tensor& actions);

  // The layers, for ContinuousQPass.
  const Mlp& trunk() const { return trunk_; }
  const torch::nn::Linear& head() const { return head_; }

  ContinuousQNetworkOptions options;

 private:
  Mlp trunk_{nullptr};
  torch::nn::Linear head_{nullptr};
};
TORCH_MODULE(ContinuousQNetwork);

}  // namespace mnrl::nn
