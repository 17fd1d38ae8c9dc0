#pragma once

#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>

#include "nn/q_network.h"

namespace mnrl::nn {

// A QNetwork's forward pass and its backward pass written out by hand, for one batch size, over
// the network's own parameter tensors and their .grad() tensors. A DQN gradient step through
// autograd costs about sixty LibTorch ops and a graph; here it is a dozen BLAS calls and plain
// loops over buffers allocated once (tests check values and gradients against autograd).
//
// Invariant: the network's parameters are not replaced while a pass over them lives (they
// may be written in place, as FlatParameters and optimizers do).
class QNetworkPass {
 public:
  QNetworkPass(const QNetwork& network, std::int64_t batch_size);

  std::int64_t batch_size() const { return batch_size_; }
  std::int64_t num_actions() const { return num_actions_; }

  // Q-values [batch_size, num_actions], row-major, of `observations` [batch_size,
  // observation_size]; valid until the next forward(). Keeps the activations for backward().
  const float* forward(const float* observations);
  // Writes (does not add) d loss / d parameter into every parameter's .grad(), given
  // `q_gradients` = d loss / d Q [batch_size, num_actions] at the last forward().
  void backward(const float* q_gradients);

 private:
  struct Layer {
    at::Tensor weight, bias;  // [out, in], [out]: the module's parameters
    at::Tensor output;        // [batch, out] after the activation (the trunk) or the head
    at::Tensor output_gradient;  // [batch, out], d loss / d output, then / d pre-activation
  };
  // Writes the layer's weight and bias gradients from its output_gradient and its `input`.
  void write_parameter_gradients(const Layer& layer, const at::Tensor& input) const;

  Activation activation_;
  bool dueling_;
  std::int64_t batch_size_, num_actions_;
  at::Tensor input_;  // [batch, observation_size] view of the last forward()'s observations
  std::vector<Layer> trunk_;
  Layer advantage_head_, value_head_;  // value_head_ used only when dueling
  at::Tensor q_;                       // [batch, num_actions] (dueling: combined heads)
};

}  // namespace mnrl::nn
