#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <torch/arg.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include "nn/action_distribution.h"
#include "nn/mlp.h"

namespace mnrl::nn {

struct ActorCriticOptions {
  // `action_size`: the number of actions of a Discrete space, or the number of values of a Box
  // (then set continuous(true)).
  ActorCriticOptions(std::int64_t observation_size, std::int64_t action_size)
      : observation_size_(observation_size), action_size_(action_size) {}

  TORCH_ARG(std::int64_t, observation_size);
  TORCH_ARG(std::int64_t, action_size);
  TORCH_ARG(std::vector<std::int64_t>, hidden_sizes) = std::vector<std::int64_t>{64, 64};
  TORCH_ARG(Activation, activation) = Activation::tanh;
  // One trunk feeding both heads, or separate policy and value trunks (SB3's default).
  TORCH_ARG(bool, shared_trunk) = false;
  // Orthogonal init with gains sqrt(2) (trunks), 0.01 (policy head), 1 (value head).
  TORCH_ARG(bool, orthogonal_init) = true;
  // Continuous actions: a diagonal Gaussian whose mean is the policy head's output and whose
  // log-std is a learned parameter per action value, independent of the state (SB3's
  // DiagGaussianDistribution), starting at log_std_init.
  TORCH_ARG(bool, continuous) = false;
  TORCH_ARG(double, log_std_init) = 0.0;
  // Continuous actions squashed by tanh into (-1, 1), with the log-prob correction.
  TORCH_ARG(bool, squash) = false;
};

struct PolicyValue {
  at::Tensor policy;  // [batch, action_size]: logits (Discrete) or Gaussian means (Box)
  at::Tensor value;   // [batch]
};

// An actor-critic: observation -> (policy head output, state value), and the action
// distribution that output stands for.
class ActorCriticImpl : public torch::nn::Module {
 public:
  explicit ActorCriticImpl(ActorCriticOptions options);

  PolicyValue forward(const at::Tensor& observations);
  at::Tensor value(const at::Tensor& observations);
  // Categorical over logits, or (squashed) diagonal Gaussian around means.
  std::unique_ptr<ActionDistribution> distribution(const at::Tensor& policy) const;

  ActorCriticOptions options;

 private:
  Mlp policy_trunk_{nullptr};
  Mlp value_trunk_{nullptr};  // null when the trunk is shared
  torch::nn::Linear policy_head_{nullptr};
  torch::nn::Linear value_head_{nullptr};
  at::Tensor log_std_;  // [action_size], continuous actions only
};
TORCH_MODULE(ActorCritic);

}  // namespace mnrl::nn
