#pragma once

#include <torch/nn/cloneable.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

#include "nn/q_network.h"

namespace mnrl::nn {

// A Q-network as a chain of blocks, for pipeline stages across ranks (distributed/pipeline):
// the encoder (where there is one; nn::EncoderBlock), one block per trunk layer (nn::
// TrunkLayerBlock), the heads. The blocks hold the network's own layers (not copies); a clone
// (PipeDream's weight stash) holds copies. The chain's output is the network's forward().

// The trunk's features -> Q-values [batch, num_actions], or [batch, num_actions, atoms].
class QHeadsBlockImpl : public torch::nn::Cloneable<QHeadsBlockImpl> {
 public:
  // `value`: the dueling head, or null.
  QHeadsBlockImpl(torch::nn::Linear advantage, torch::nn::Linear value, std::int64_t num_actions,
                  std::int64_t atoms);
  void reset() override;
  at::Tensor forward(const at::Tensor& features);

 private:
  torch::nn::Linear advantage_, value_;
  std::int64_t num_actions_, atoms_;
};
TORCH_MODULE(QHeadsBlock);

// The chain of `network`'s blocks, sharing its parameters. Throws std::invalid_argument for IQN
// (its fractions enter mid-network) and noisy nets (their noise is drawn per network).
torch::nn::Sequential q_network_blocks(const QNetwork& network);

}  // namespace mnrl::nn
