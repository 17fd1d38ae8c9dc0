#pragma once

#include <cstdint>
#include <optional>

#include <ATen/core/Tensor.h>

#include "nn/conv_encoder_pass.h"
#include "nn/dense_pass.h"
#include "nn/q_network.h"

namespace mnrl::nn {

// A QNetwork's forward pass and its backward pass written out by hand (nn/dense_pass.h, and
// nn/conv_encoder_pass.h for a network over images), for one batch size: a DQN gradient step
// through autograd costs about sixty LibTorch ops and a graph; here it is a dozen BLAS calls (tests
// check values and gradients against autograd). Networks with atoms (C51, QR-DQN) give [batch_size,
// num_actions, atoms]; noisy layers take their noise as it stands at each forward(); IQN has no
// hand-written pass (std::invalid_argument).
class QNetworkPass {
 public:
  QNetworkPass(const QNetwork& network, std::int64_t batch_size);

  std::int64_t batch_size() const { return batch_size_; }
  std::int64_t num_actions() const { return num_actions_; }
  std::int64_t atoms() const { return atoms_; }
  // Of forward().
  std::int64_t multiply_adds() const;

  // Q-values [batch_size, num_actions(, atoms)], row-major, of `observations` [batch_size,
  // observation_size]; valid until the next forward(). Keeps the activations for backward().
  const float* forward(const float* observations);
  // Writes (does not add) d loss / d parameter into every parameter's .grad(), given
  // `q_gradients` = d loss / d outputs at the last forward().
  void backward(const float* q_gradients);

 private:
  bool dueling_;
  std::int64_t batch_size_, num_actions_, atoms_, observation_size_;
  std::optional<ConvEncoderPass> encoder_;  // networks over images
  TrunkPass trunk_;
  DenseLayer advantage_head_, value_head_;  // value_head_ used only when dueling
  at::Tensor q_;                            // [batch, num_actions, atoms] (dueling: combined heads)
};

}  // namespace mnrl::nn
