#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>

#include "nn/conv_encoder_pass.h"
#include "nn/dense_pass.h"
#include "nn/recurrent_core_pass.h"
#include "nn/recurrent_q_network.h"

namespace mnrl::nn {

// A RecurrentQNetwork's forward and backward pass by hand (nn/dense_pass.h, conv_encoder_pass.h,
// recurrent_core_pass.h), for rows of `steps` steps of `batch` sequences laid out
// [step][sequence]: the Q-values of every row, and the gradient of every parameter from
// d loss / d those Q-values. A target network's pass only runs forward. Tests check values and
// gradients against autograd.
class RecurrentQNetworkPass {
 public:
  RecurrentQNetworkPass(const RecurrentQNetwork& network, std::int64_t steps, std::int64_t batch);

  // Q-values of `observations` [steps * batch, observation_size] (floats, scaled) from `state`
  // [batch, state_size] (read before write_state() may write there), with `episode_starts`
  // [steps * batch] (null: none) as RecurrentQNetwork::forward's. Reads `observations` again in
  // backward().
  void forward(const float* observations, const float* episode_starts, const float* state);
  // [steps * batch, num_actions], row-major; valid until the next forward().
  const float* q_values() const;
  std::int64_t num_actions() const { return advantage_head_.output.size(1); }
  // Of forward().
  std::int64_t multiply_adds() const;
  // The memory after the last step, [batch, state_size].
  void write_state(float* state) const { core_.write_state(state); }
  // d loss / d q_values(), for the caller to fill before backward().
  float* q_gradient();
  // Writes (does not add) every parameter's gradient; `gradient_stops` (null: none) as
  // RecurrentCorePass::backward's.
  void backward(const float* gradient_stops);

 private:
  std::int64_t rows_, observation_size_;
  std::optional<ConvEncoderPass> encoder_;
  RecurrentCorePass core_;
  TrunkPass trunk_;
  DenseLayer advantage_head_;            // Q itself when not dueling
  std::optional<DenseLayer> value_head_;  // dueling: Q = V + A - mean A
  at::Tensor q_, q_gradient_;             // dueling: [rows, num_actions]
};

}  // namespace mnrl::nn
