#pragma once

#include <torch/nn/cloneable.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <memory>

#include "nn/action_distribution.h"
#include "nn/activation.h"
#include "nn/actor_critic.h"
#include "nn/conv_encoder.h"

namespace mnrl::nn {

// A memoryless actor-critic as a chain of blocks, for pipeline stages across ranks
// (distributed/pipeline): the encoder (where there is one), one block per trunk layer, the
// heads. Between blocks the activation is one float matrix: with separate trunks the policy
// trunk's columns, then the value trunk's. The blocks hold the model's own layers (not
// copies); a clone (PipeDream's weight stash) holds copies.

// Observations -> the encoder's features.
class EncoderBlockImpl : public torch::nn::Cloneable<EncoderBlockImpl> {
 public:
  explicit EncoderBlockImpl(ConvEncoder encoder);
  void reset() override;  // a clone's own encoder
  at::Tensor forward(const at::Tensor& observations);

 private:
  ConvEncoder encoder_;
};
TORCH_MODULE(EncoderBlock);

// Layer i of the trunks, each layer followed by the activation. `policy_columns` > 0: the input
// is [policy | value] and each layer takes its own columns (policy_columns of them first);
// 0: both take the whole input (the first layer after the encoder, or a shared trunk, whose
// `value` is null).
class TrunkLayerBlockImpl : public torch::nn::Cloneable<TrunkLayerBlockImpl> {
 public:
  TrunkLayerBlockImpl(torch::nn::Linear policy, torch::nn::Linear value, Activation activation,
                      std::int64_t policy_columns);
  void reset() override;
  at::Tensor forward(const at::Tensor& x);

 private:
  torch::nn::Linear policy_, value_;
  Activation activation_;
  std::int64_t policy_columns_;
};
TORCH_MODULE(TrunkLayerBlock);

// The heads: [policy head output | value | log-std] rows (the log-std, of continuous actions
// only, repeated in every row so that a stage's loss differentiates the block's own).
class HeadsBlockImpl : public torch::nn::Cloneable<HeadsBlockImpl> {
 public:
  HeadsBlockImpl(torch::nn::Linear policy, torch::nn::Linear value, at::Tensor log_std,
                 std::int64_t policy_columns);
  void reset() override;
  at::Tensor forward(const at::Tensor& x);

 private:
  torch::nn::Linear policy_, value_;
  at::Tensor log_std_;  // undefined for Discrete actions
  std::int64_t policy_columns_;
};
TORCH_MODULE(HeadsBlock);

// The chain of `model`'s blocks, sharing its parameters. Throws std::invalid_argument for a
// recurrent or gSDE model (their memory and exploration matrices do not cut into stages).
torch::nn::Sequential actor_critic_blocks(const ActorCritic& model);

// The chain's output split back: the policy head's output and the value, and the action
// distribution of `model`'s kind over them (with the output's log-std).
struct ChainOutput {
  PolicyValue output;
  std::unique_ptr<ActionDistribution> distribution;
};
ChainOutput chain_output(const ActorCriticImpl& model, const at::Tensor& output);

}  // namespace mnrl::nn
