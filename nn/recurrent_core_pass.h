#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "nn/recurrent_core.h"

namespace mnrl::nn {

// One LSTM or GRU layer of a RecurrentCore, forward over a [steps][batch] sequence of rows and
// backward through time, written out by hand (as nn/dense_pass.h's layers): per layer one
// product for every step's input weights, then one [batch, hidden] product per step for the
// recurrent weights; the weight gradients are again one product each over all the rows.
//
// LibTorch's gate order: LSTM i, f, g, o (c' = f c + i g, h' = o tanh(c')); GRU r, z, n
// (n = tanh(W_in x + b_in + r (W_hn h + b_hn)), h' = (1 - z) n + z h).
class RecurrentLayerPass {
 public:
  RecurrentLayerPass(const torch::nn::Module& rnn, std::int64_t layer, RecurrentCell cell,
                     std::int64_t steps, std::int64_t batch);

  // `input` [steps * batch, in] (kept until backward()), from h (and c) `initial` rows of
  // `batch` (each `initial_stride` floats apart, c hidden floats after h), with step t's memory
  // zeroed first where episode_starts[t * batch + b] is 1 (null: no episode starts).
  void forward(const at::Tensor& input, const float* episode_starts, const float* initial,
               std::int64_t initial_stride);
  // [steps * batch, hidden]: h at every step.
  const at::Tensor& outputs() const { return outputs_; }
  // d loss / d outputs(), for the caller to fill before backward().
  at::Tensor& outputs_gradient() { return outputs_gradient_; }
  // Writes h (and c) after the last step into rows of `batch` `stride` floats apart.
  void write_state(float* state, std::int64_t stride) const;
  // Writes the layer's parameter gradients and, given `input_gradient` [steps * batch, in],
  // d loss / d input there. No gradient reaches the initial memory (it is data), nor crosses
  // an episode start, nor, with `gradient_stops`, from a row where it is 1 into the memory
  // that row's step started from (as if that memory were detached, as R2D2's burn-in is).
  void backward(at::Tensor* input_gradient, const float* gradient_stops);
  std::int64_t multiply_adds() const;

 private:
  void lstm_step(std::int64_t t);
  void gru_step(std::int64_t t);
  void lstm_step_backward(std::int64_t t);
  void gru_step_backward(std::int64_t t);
  // The memory step t starts from: the initial one or step t - 1's, zeroed at episode starts.
  void carry_into(std::int64_t t, const float* initial, std::int64_t initial_stride);
  // What step t carries back to step t - 1, times keep_gradient_ of step t's rows.
  void cut_carried_gradients(std::int64_t t);

  RecurrentCell cell_;
  std::int64_t steps_, batch_, hidden_, gates_width_;
  at::Tensor weight_ih_, weight_hh_, bias_ih_, bias_hh_;
  at::Tensor input_;
  std::vector<float> keep_;           // 1 - episode start, per row
  std::vector<float> keep_gradient_;  // backward(): also 0 at gradient stops
  std::vector<float> bias_;  // LSTM: b_ih + b_hh, added to every row's input product
  // Per row: the gates after their activations (LSTM i f g o; GRU r z n), the memory the step
  // started from, h after it; LSTM: c after it and tanh(c); GRU: W_hn h + b_hn.
  at::Tensor gates_, previous_h_, previous_c_, outputs_, cells_, tanh_cells_, hidden_n_;
  // Backward: d loss / d each row's gate pre-activations (GRU: of the input side, and of the
  // recurrent side, which differ in n), d loss / d outputs, and what step t carries back to
  // t - 1 ([batch, hidden] each).
  at::Tensor gate_gradients_, hidden_gate_gradients_, outputs_gradient_;
  at::Tensor carried_h_gradient_, carried_c_gradient_;
  at::Tensor step_scratch_;  // GRU forward: [batch, 3 hidden], h W_hh^T + b_hh
};

// A RecurrentCore's forward and backward pass by hand: each RNN's layers (RecurrentLayerPass)
// over the same inputs, their memory laid out as RecurrentCore's state rows. The policy's and
// the value's RNNs run at once where worth it (nn/compute_threads.h).
class RecurrentCorePass {
 public:
  RecurrentCorePass(const RecurrentCore& core, std::int64_t steps, std::int64_t batch);

  std::int64_t steps() const { return steps_; }
  std::int64_t batch() const { return batch_; }
  // `inputs` [steps * batch, input_size] (kept until backward()) from `state` [batch,
  // state_size] (read only here: it may be where write_state() writes), `episode_starts`
  // [steps * batch] as RecurrentCore::forward's (null: none).
  void forward(const at::Tensor& inputs, const float* episode_starts, const float* state);
  // [steps * batch, hidden]: the top layer's h, of the policy's RNN and of the value's (the
  // same tensor when shared).
  const at::Tensor& policy_features() const { return rnns_.front().back().outputs(); }
  const at::Tensor& value_features() const { return rnns_.back().back().outputs(); }
  // d loss / d those features, for the caller to fill before backward() (the same tensor when
  // shared).
  at::Tensor& policy_features_gradient() { return rnns_.front().back().outputs_gradient(); }
  at::Tensor& value_features_gradient() { return rnns_.back().back().outputs_gradient(); }
  bool shared() const { return rnns_.size() == 1; }
  // The memory after the last step, [batch, state_size].
  void write_state(float* state) const;
  // Every RNN parameter's gradient and, given `input_gradient`, d loss / d inputs there;
  // `gradient_stops` as RecurrentLayerPass::backward's.
  void backward(at::Tensor* input_gradient, const float* gradient_stops = nullptr);
  std::int64_t multiply_adds() const;

 private:
  std::int64_t rnn_multiply_adds(std::size_t rnn) const;
  void forward_rnn(std::size_t rnn, const at::Tensor& inputs, const float* episode_starts);
  void backward_rnn(std::size_t rnn, at::Tensor* input_gradient, const float* gradient_stops);

  std::int64_t steps_, batch_, state_size_, rnn_state_size_, layer_state_size_;
  std::vector<float> initial_state_;
  std::vector<std::vector<RecurrentLayerPass>> rnns_;
  at::Tensor value_input_gradient_;  // separate RNNs over inputs that need a gradient
};

}  // namespace mnrl::nn
