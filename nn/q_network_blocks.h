#pragma once

#include <torch/nn/cloneable.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <vector>

#include "nn/activation.h"
#include "nn/noisy_linear.h"
#include "nn/q_network.h"

namespace mnrl::nn {

// A Q-network as a chain of blocks, for pipeline stages across ranks (distributed/pipeline):
// the encoder (where there is one; nn::EncoderBlock), one block per trunk layer (nn::
// TrunkLayerBlock), the heads. The blocks hold the network's own layers (not copies); a clone
// (PipeDream's weight stash) holds copies. The chain's output is the network's forward().

// Noisy nets: trunk layer i (a NoisyLinear) followed by the activation.
class NoisyTrunkLayerBlockImpl : public torch::nn::Cloneable<NoisyTrunkLayerBlockImpl> {
 public:
  NoisyTrunkLayerBlockImpl(NoisyLinear layer, Activation activation);
  void reset() override;
  at::Tensor forward(const at::Tensor& x);

 private:
  NoisyLinear layer_;
  Activation activation_;
};
TORCH_MODULE(NoisyTrunkLayerBlock);

// One head of a Q-network: a Linear, or (noisy nets) a NoisyLinear.
struct QHead {
  torch::nn::Linear linear{nullptr};
  NoisyLinear noisy{nullptr};
  bool empty() const { return linear.is_empty() && noisy.is_empty(); }
};

// The trunk's features -> Q-values [batch, num_actions], or [batch, num_actions, atoms].
class QHeadsBlockImpl : public torch::nn::Cloneable<QHeadsBlockImpl> {
 public:
  // `value`: the dueling head, or empty.
  QHeadsBlockImpl(QHead advantage, QHead value, std::int64_t num_actions, std::int64_t atoms);
  void reset() override;
  at::Tensor forward(const at::Tensor& features);

 private:
  QHead advantage_, value_;
  std::int64_t num_actions_, atoms_;
};
TORCH_MODULE(QHeadsBlock);

// The chain of `network`'s blocks, sharing its parameters; with noisy nets, the noisy layers
// in the network's order (noisy_layers_in(chain) is network->noisy_layers()). Throws
// std::invalid_argument for IQN (its quantile fractions enter mid-network).
torch::nn::Sequential q_network_blocks(const QNetwork& network);

// The NoisyLinear layers of `module` and its submodules, in registration order (the order
// QNetwork::set_noise() lays their noise out in, for a chain of its blocks).
std::vector<NoisyLinear> noisy_layers_in(const torch::nn::Module& module);

}  // namespace mnrl::nn
