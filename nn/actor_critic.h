#pragma once

#include <cstdint>
#include <vector>

#include <torch/arg.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include "nn/mlp.h"

namespace mnrl::nn {

struct ActorCriticOptions {
  ActorCriticOptions(std::int64_t observation_size, std::int64_t num_actions)
      : observation_size_(observation_size), num_actions_(num_actions) {}

  TORCH_ARG(std::int64_t, observation_size);
  TORCH_ARG(std::int64_t, num_actions);
  TORCH_ARG(std::vector<std::int64_t>, hidden_sizes) = std::vector<std::int64_t>{64, 64};
  TORCH_ARG(Activation, activation) = Activation::tanh;
  // One trunk feeding both heads, or separate policy and value trunks (SB3's default).
  TORCH_ARG(bool, shared_trunk) = false;
  // Orthogonal init with gains sqrt(2) (trunks), 0.01 (policy head), 1 (value head).
  TORCH_ARG(bool, orthogonal_init) = true;
};

struct PolicyValue {
  at::Tensor logits;  // [batch, num_actions], unnormalized
  at::Tensor value;   // [batch]
};

// A discrete-action actor-critic: observation -> (action logits, state value).
class ActorCriticImpl : public torch::nn::Module {
 public:
  explicit ActorCriticImpl(ActorCriticOptions options);

  PolicyValue forward(const at::Tensor& observations);
  at::Tensor value(const at::Tensor& observations);

  ActorCriticOptions options;

 private:
  Mlp policy_trunk_{nullptr};
  Mlp value_trunk_{nullptr};  // null when the trunk is shared
  torch::nn::Linear policy_head_{nullptr};
  torch::nn::Linear value_head_{nullptr};
};
TORCH_MODULE(ActorCritic);

}  // namespace mnrl::nn
