#pragma once

#include <torch/arg.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "nn/action_distribution.h"
#include "nn/conv_encoder.h"
#include "nn/mlp.h"
#include "nn/recurrent_core.h"
#include "nn/state_dependent_noise.h"

namespace mnrl::nn {

struct ActorCriticOptions {
  // `action_size`: the number of actions of a Discrete space, or the number of values of a Box
  // (then set continuous(true)).
  ActorCriticOptions(std::int64_t observation_size, std::int64_t action_size)
      : observation_size_(observation_size), action_size_(action_size) {}

  TORCH_ARG(std::int64_t, observation_size);
  TORCH_ARG(std::int64_t, action_size);
  // What uint8 observations are multiplied by as they become the network's floats
  // (envs::byte_scale: 1/255 for images).
  TORCH_ARG(float, byte_scale) = 1.0f;
  // Images: a convolutional encoder, shared by the policy and the value (SB3's default for
  // on-policy CNN policies), whose features feed the trunks; without, the trunks take the
  // observation.
  TORCH_ARG(std::optional<ConvEncoderOptions>, encoder) = std::nullopt;
  // Memory (an LSTM or GRU core) between the encoder and the trunks; its input_size is set
  // here, to the encoder's features or the observation size.
  TORCH_ARG(std::optional<RecurrentCoreOptions>, recurrent) = std::nullopt;
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
  // Continuous actions: generalized state-dependent exploration (nn/state_dependent_noise.h)
  // on the policy trunk's features, in place of the state-independent std, with these options
  // (their `squash` is taken from squash above); log_std_init then starts its log-std matrix.
  TORCH_ARG(bool, use_sde) = false;
  TORCH_ARG(StateDependentNoiseOptions, sde) = {};
  // On a GPU: matmuls and convolutions in bfloat16 (nn::Bf16Autocast), outputs in float32.
  TORCH_ARG(bool, bf16_autocast) = false;
};

struct PolicyValue {
  at::Tensor policy;    // [batch, action_size]: logits (Discrete) or Gaussian means (Box)
  at::Tensor value;     // [batch]
  at::Tensor features;  // [batch, features]: the policy trunk's output (gSDE's latent)
};

// An actor-critic: observation -> (policy head output, state value), and the action
// distribution that output stands for.
class ActorCriticImpl : public torch::nn::Module {
 public:
  explicit ActorCriticImpl(ActorCriticOptions options);

  // A memoryless actor-critic's outputs for `observations` [batch, ...].
  PolicyValue forward(const at::Tensor& observations);
  at::Tensor value(const at::Tensor& observations);
  // A recurrent one's: `observations` are rows [steps][batch] (batch = state.size(0)) from
  // the memory `state` [batch, state_size()], `episode_starts` [steps * batch] (1 where the
  // observation begins an episode, see RecurrentCore); the memory after the last step goes to
  // `state_out` when given.
  PolicyValue forward(const at::Tensor& observations, const at::Tensor& episode_starts,
                      const at::Tensor& state, at::Tensor* state_out = nullptr);
  bool recurrent() const { return !core_.is_empty(); }
  std::int64_t state_size() const { return recurrent() ? core_->state_size() : 0; }
  const RecurrentCore& core() const { return core_; }  // null without memory
  // Categorical over logits, or (squashed) diagonal Gaussian around means, with gSDE's
  // state-dependent std when use_sde. Its samples are fresh draws (evaluation, losses).
  std::unique_ptr<ActionDistribution> distribution(const PolicyValue& output) const;
  // The same distribution, whose samples are what a rollout explores with: with gSDE, the
  // mean plus the noise of the current exploration matrices (reset_noise()).
  std::unique_ptr<ActionDistribution> exploration_distribution(const PolicyValue& output) const;
  // gSDE: draws new exploration matrices, one per env of `count`. Nothing without gSDE.
  void reset_noise(std::int64_t count);
  // gSDE's exploration state (for checkpoints); null without gSDE.
  StateDependentNoise* state_dependent_noise() { return sde_ ? &*sde_ : nullptr; }
  const StateDependentNoise* state_dependent_noise() const { return sde_ ? &*sde_ : nullptr; }

  // The encoder (null without one), then the layers to the policy head's output (the Gaussian's
  // mean, or logits).
  const ConvEncoder& encoder() const { return encoder_; }
  const Mlp& policy_trunk() const { return policy_trunk_; }
  const torch::nn::Linear& policy_head() const { return policy_head_; }
  // The value side; value_trunk() is null when the trunk is shared.
  const Mlp& value_trunk() const { return value_trunk_; }
  const torch::nn::Linear& value_head() const { return value_head_; }
  // Continuous actions: the Gaussian's log-std parameter ([action_size]; gSDE: a matrix);
  // undefined for Discrete actions.
  const at::Tensor& log_std() const { return log_std_; }

  ActorCriticOptions options;

 private:
  // The trunks' input: the encoder's features, or the observations themselves.
  at::Tensor trunk_input(const at::Tensor& observations);
  // The trunks and heads from the inputs of the policy and of the value sides.
  PolicyValue heads(const at::Tensor& policy_inputs, const at::Tensor& value_inputs);

  ConvEncoder encoder_{nullptr};  // null without an encoder
  RecurrentCore core_{nullptr};   // null without memory
  Mlp policy_trunk_{nullptr};
  Mlp value_trunk_{nullptr};  // null when the trunk is shared
  torch::nn::Linear policy_head_{nullptr};
  torch::nn::Linear value_head_{nullptr};
  // Continuous actions: [action_size], or gSDE's [features, action_size or 1].
  at::Tensor log_std_;
  std::optional<StateDependentNoise> sde_;
};
TORCH_MODULE(ActorCritic);

}  // namespace mnrl::nn
