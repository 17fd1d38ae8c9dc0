#include "nn/recurrent_core_pass.h"

#include <ATen/ops/empty.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <string>

#include "nn/compute_threads.h"
#include "nn/dense_pass.h"
#include "nn/memory_views.h"
#include "nn/row_major_gemm.h"
#include "nn/tanh_array.h"

namespace mnrl::nn {
namespace {

std::int64_t gate_count(RecurrentCell cell) { return cell == RecurrentCell::lstm ? 4 : 3; }

// sigmoid(x) = (tanh(x / 2) + 1) / 2 over n contiguous floats, in place: tanh_of_array's
// vectorized loop, so within 1e-7 of the exact value.
void sigmoid_in_place(float* x, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) x[i] *= 0.5f;
  tanh_of_array(x, x, n);
  for (std::int64_t i = 0; i < n; ++i) x[i] = 0.5f * x[i] + 0.5f;
}

// c (+)= a b' for one step's [batch, k] rows a: the recurrent products, whose batch (the
// sequences of a minibatch) is often 1-3.
void step_product(bool b_transposed, std::int64_t batch, std::int64_t n, std::int64_t k,
                  const float* a, const float* b, float beta, float* c) {
  const std::int64_t ldb = b_transposed ? k : n;
  if (batch <= kFewRows) {
    few_rows_gemm(b_transposed, batch, n, k, a, k, b, ldb, beta, c, n);
  } else {
    row_major_gemm(false, b_transposed, batch, n, k, a, k, b, ldb, beta, c, n);
  }
}

// Every row of [rows, width] `out` set to `row`.
void fill_rows(float* out, const float* row, std::int64_t rows, std::int64_t width) {
  for (std::int64_t r = 0; r < rows; ++r) std::copy_n(row, width, out + r * width);
}

// bias = the column sums of [rows, width] `g`.
void column_sums(const float* g, std::int64_t rows, std::int64_t width, float* bias) {
  std::copy_n(g, width, bias);
  for (std::int64_t r = 1; r < rows; ++r) {
    for (std::int64_t j = 0; j < width; ++j) bias[j] += g[r * width + j];
  }
}

}  // namespace

RecurrentLayerPass::RecurrentLayerPass(const torch::nn::Module& rnn, std::int64_t layer,
                                       RecurrentCell cell, std::int64_t steps, std::int64_t batch)
    : cell_(cell), steps_(steps), batch_(batch) {
  const auto parameters = rnn.named_parameters(/*recurse=*/false);
  const std::string suffix = "_l" + std::to_string(layer);
  weight_ih_ = parameters["weight_ih" + suffix];
  weight_hh_ = parameters["weight_hh" + suffix];
  bias_ih_ = parameters["bias_ih" + suffix];
  bias_hh_ = parameters["bias_hh" + suffix];
  hidden_ = weight_hh_.size(1);
  gates_width_ = gate_count(cell) * hidden_;
  const std::int64_t rows = steps * batch;
  keep_.resize(static_cast<std::size_t>(rows));
  keep_gradient_.resize(static_cast<std::size_t>(rows));
  bias_.resize(static_cast<std::size_t>(gates_width_));
  gates_ = at::empty({rows, gates_width_});
  previous_h_ = at::empty({rows, hidden_});
  outputs_ = at::empty({rows, hidden_});
  gate_gradients_ = at::empty({rows, gates_width_});
  outputs_gradient_ = at::empty({rows, hidden_});
  carried_h_gradient_ = at::empty({batch, hidden_});
  if (cell == RecurrentCell::lstm) {
    previous_c_ = at::empty({rows, hidden_});
    cells_ = at::empty({rows, hidden_});
    tanh_cells_ = at::empty({rows, hidden_});
    carried_c_gradient_ = at::empty({batch, hidden_});
  } else {
    hidden_n_ = at::empty({rows, hidden_});
    hidden_gate_gradients_ = at::empty({rows, gates_width_});
    step_scratch_ = at::empty({batch, gates_width_});
  }
}

std::int64_t RecurrentLayerPass::multiply_adds() const {
  return steps_ * batch_ * gates_width_ * (weight_ih_.size(1) + hidden_);
}

void RecurrentLayerPass::forward(const at::Tensor& input, const float* episode_starts,
                                 const float* initial, std::int64_t initial_stride) {
  input_ = input;
  const std::int64_t rows = steps_ * batch_, in = weight_ih_.size(1);
  for (std::int64_t r = 0; r < rows; ++r) keep_[r] = episode_starts ? 1.0f - episode_starts[r] : 1.0f;
  // Every step's input product at once: W_ih x + b_ih (+ b_hh, for an LSTM: both add to
  // every gate; a GRU's b_hn sits inside r (...)).
  const float* b_ih = floats(bias_ih_);
  const float* b_hh = floats(bias_hh_);
  for (std::int64_t j = 0; j < gates_width_; ++j) {
    bias_[j] = cell_ == RecurrentCell::lstm ? b_ih[j] + b_hh[j] : b_ih[j];
  }
  fill_rows(floats(gates_), bias_.data(), rows, gates_width_);
  row_major_gemm(false, true, rows, gates_width_, in, floats(input), input.stride(0),
                 floats(weight_ih_), in, 1.0f, floats(gates_), gates_width_);
  for (std::int64_t t = 0; t < steps_; ++t) {
    carry_into(t, initial, initial_stride);
    if (cell_ == RecurrentCell::lstm) {
      lstm_step(t);
    } else {
      gru_step(t);
    }
  }
}

void RecurrentLayerPass::carry_into(std::int64_t t, const float* initial,
                                    std::int64_t initial_stride) {
  const bool lstm = cell_ == RecurrentCell::lstm;
  for (std::int64_t b = 0; b < batch_; ++b) {
    const std::int64_t row = t * batch_ + b;
    const float keep = keep_[row];
    const float* h = t == 0 ? initial + b * initial_stride
                            : floats(outputs_) + (row - batch_) * hidden_;
    float* h_out = floats(previous_h_) + row * hidden_;
    for (std::int64_t j = 0; j < hidden_; ++j) h_out[j] = keep * h[j];
    if (!lstm) continue;
    const float* c =
        t == 0 ? initial + b * initial_stride + hidden_ : floats(cells_) + (row - batch_) * hidden_;
    float* c_out = floats(previous_c_) + row * hidden_;
    for (std::int64_t j = 0; j < hidden_; ++j) c_out[j] = keep * c[j];
  }
}

void RecurrentLayerPass::lstm_step(std::int64_t t) {
  const std::int64_t first = t * batch_, H = hidden_, W = gates_width_;
  float* gates = floats(gates_) + first * W;
  const float* h = floats(previous_h_) + first * H;
  step_product(true, batch_, W, H, h, floats(weight_hh_), 1.0f, gates);
  float* c = floats(cells_) + first * H;
  const float* c_before = floats(previous_c_) + first * H;
  for (std::int64_t b = 0; b < batch_; ++b) {
    float* g = gates + b * W;
    sigmoid_in_place(g, 2 * H);  // i, f
    tanh_of_array(g + 2 * H, g + 2 * H, H);
    sigmoid_in_place(g + 3 * H, H);  // o
    for (std::int64_t j = 0; j < H; ++j) {
      c[b * H + j] = g[H + j] * c_before[b * H + j] + g[j] * g[2 * H + j];
    }
  }
  float* tanh_c = floats(tanh_cells_) + first * H;
  tanh_of_array(c, tanh_c, batch_ * H);
  float* out = floats(outputs_) + first * H;
  for (std::int64_t b = 0; b < batch_; ++b) {
    const float* o = gates + b * W + 3 * H;
    for (std::int64_t j = 0; j < H; ++j) out[b * H + j] = o[j] * tanh_c[b * H + j];
  }
}

void RecurrentLayerPass::gru_step(std::int64_t t) {
  const std::int64_t first = t * batch_, H = hidden_, W = gates_width_;
  float* recurrent = floats(step_scratch_);
  const float* h = floats(previous_h_) + first * H;
  fill_rows(recurrent, floats(bias_hh_), batch_, W);
  step_product(true, batch_, W, H, h, floats(weight_hh_), 1.0f, recurrent);
  float* gates = floats(gates_) + first * W;
  float* hidden_n = floats(hidden_n_) + first * H;
  float* out = floats(outputs_) + first * H;
  for (std::int64_t b = 0; b < batch_; ++b) {
    float* g = gates + b * W;
    const float* s = recurrent + b * W;
    for (std::int64_t j = 0; j < 2 * H; ++j) g[j] += s[j];
    sigmoid_in_place(g, 2 * H);  // r, z
    float* n = g + 2 * H;
    for (std::int64_t j = 0; j < H; ++j) {
      hidden_n[b * H + j] = s[2 * H + j];
      n[j] += g[j] * s[2 * H + j];
    }
    tanh_of_array(n, n, H);
    for (std::int64_t j = 0; j < H; ++j) {
      const float z = g[H + j];
      out[b * H + j] = (1.0f - z) * n[j] + z * h[b * H + j];
    }
  }
}

void RecurrentLayerPass::write_state(float* state, std::int64_t stride) const {
  const std::int64_t last = (steps_ - 1) * batch_;
  for (std::int64_t b = 0; b < batch_; ++b) {
    std::copy_n(floats(outputs_) + (last + b) * hidden_, hidden_, state + b * stride);
    if (cell_ == RecurrentCell::lstm) {
      std::copy_n(floats(cells_) + (last + b) * hidden_, hidden_, state + b * stride + hidden_);
    }
  }
}

void RecurrentLayerPass::backward(at::Tensor* input_gradient, const float* gradient_stops) {
  const bool lstm = cell_ == RecurrentCell::lstm;
  for (std::size_t r = 0; r < keep_.size(); ++r) {
    keep_gradient_[r] = gradient_stops && gradient_stops[r] != 0.0f ? 0.0f : keep_[r];
  }
  carried_h_gradient_.zero_();
  if (lstm) carried_c_gradient_.zero_();
  for (std::int64_t t = steps_ - 1; t >= 0; --t) {
    if (lstm) {
      lstm_step_backward(t);
    } else {
      gru_step_backward(t);
    }
  }
  const std::int64_t rows = steps_ * batch_, in = weight_ih_.size(1), W = gates_width_;
  const float* input_side = floats(gate_gradients_);
  const float* recurrent_side = lstm ? input_side : floats(hidden_gate_gradients_);
  row_major_gemm(true, false, W, in, rows, input_side, W, floats(input_), input_.stride(0), 0.0f,
                 floats(gradient_of(weight_ih_)), in);
  row_major_gemm(true, false, W, hidden_, rows, recurrent_side, W, floats(previous_h_), hidden_,
                 0.0f, floats(gradient_of(weight_hh_)), hidden_);
  column_sums(input_side, rows, W, floats(gradient_of(bias_ih_)));
  column_sums(recurrent_side, rows, W, floats(gradient_of(bias_hh_)));
  if (input_gradient == nullptr) return;
  row_major_gemm(false, false, rows, in, W, input_side, W, floats(weight_ih_), in,
                 0.0f, floats(*input_gradient), in);
}

// d loss / d the gates of step t, from d loss / d h_t (the caller's and what step t + 1 carried
// back) and d loss / d c_t carried back; then what step t carries back to step t - 1.
void RecurrentLayerPass::lstm_step_backward(std::int64_t t) {
  const std::int64_t first = t * batch_, H = hidden_, W = gates_width_;
  const float* gates = floats(gates_) + first * W;
  const float* tanh_c = floats(tanh_cells_) + first * H;
  const float* c_before = floats(previous_c_) + first * H;
  const float* from_above = floats(outputs_gradient_) + first * H;
  float* gradient = floats(gate_gradients_) + first * W;
  float* carried_h = floats(carried_h_gradient_);
  float* carried_c = floats(carried_c_gradient_);
  for (std::int64_t b = 0; b < batch_; ++b) {
    const float* g = gates + b * W;
    float* d = gradient + b * W;
    const float keep = keep_gradient_[first + b];
    for (std::int64_t j = 0; j < H; ++j) {
      const std::int64_t k = b * H + j;
      const float i = g[j], f = g[H + j], cell_input = g[2 * H + j], o = g[3 * H + j];
      const float dh = from_above[k] + carried_h[k];
      const float dc = dh * o * (1.0f - tanh_c[k] * tanh_c[k]) + carried_c[k];
      d[j] = dc * cell_input * i * (1.0f - i);
      d[H + j] = dc * c_before[k] * f * (1.0f - f);
      d[2 * H + j] = dc * i * (1.0f - cell_input * cell_input);
      d[3 * H + j] = dh * tanh_c[k] * o * (1.0f - o);
      carried_c[k] = keep * dc * f;
    }
  }
  if (t == 0) return;
  step_product(false, batch_, H, W, gradient, floats(weight_hh_), 0.0f, carried_h);
  cut_carried_gradients(t);
}

void RecurrentLayerPass::cut_carried_gradients(std::int64_t t) {
  float* carried_h = floats(carried_h_gradient_);
  for (std::int64_t b = 0; b < batch_; ++b) {
    const float keep = keep_gradient_[t * batch_ + b];
    for (std::int64_t j = 0; j < hidden_; ++j) carried_h[b * hidden_ + j] *= keep;
  }
}

void RecurrentLayerPass::gru_step_backward(std::int64_t t) {
  const std::int64_t first = t * batch_, H = hidden_, W = gates_width_;
  const float* gates = floats(gates_) + first * W;
  const float* hidden_n = floats(hidden_n_) + first * H;
  const float* h_before = floats(previous_h_) + first * H;
  const float* from_above = floats(outputs_gradient_) + first * H;
  float* input_side = floats(gate_gradients_) + first * W;
  float* recurrent_side = floats(hidden_gate_gradients_) + first * W;
  float* carried_h = floats(carried_h_gradient_);
  for (std::int64_t b = 0; b < batch_; ++b) {
    const float* g = gates + b * W;
    float* dx = input_side + b * W;
    float* dh_side = recurrent_side + b * W;
    for (std::int64_t j = 0; j < H; ++j) {
      const std::int64_t k = b * H + j;
      const float r = g[j], z = g[H + j], n = g[2 * H + j];
      const float dh = from_above[k] + carried_h[k];
      const float dn = dh * (1.0f - z) * (1.0f - n * n);
      const float dz = dh * (h_before[k] - n) * z * (1.0f - z);
      const float dr = dn * hidden_n[k] * r * (1.0f - r);
      dx[j] = dh_side[j] = dr;
      dx[H + j] = dh_side[H + j] = dz;
      dx[2 * H + j] = dn;
      dh_side[2 * H + j] = dn * r;
      carried_h[k] = dh * z;  // h_t's direct share of h_{t-1}
    }
  }
  if (t == 0) return;
  step_product(false, batch_, H, W, recurrent_side, floats(weight_hh_), 1.0f, carried_h);
  cut_carried_gradients(t);
}

RecurrentCorePass::RecurrentCorePass(const RecurrentCore& core, std::int64_t steps,
                                     std::int64_t batch)
    : steps_(checked_batch_size("RecurrentCorePass steps", steps)),
      batch_(checked_batch_size("RecurrentCorePass", batch)),
      state_size_(core->state_size()),
      rnn_state_size_(core->policy_state_size()),
      layer_state_size_(core->policy_state_size() / core->options.layers()),
      initial_state_(static_cast<std::size_t>(batch * core->state_size())) {
  for (std::int64_t r = 0; r < core->rnn_count(); ++r) {
    std::vector<RecurrentLayerPass>& layers = rnns_.emplace_back();
    for (std::int64_t l = 0; l < core->options.layers(); ++l) {
      layers.emplace_back(*core->rnn(r), l, core->options.cell(), steps, batch);
    }
  }
  if (!shared()) {
    value_input_gradient_ = at::empty({steps * batch, core->options.input_size()});
  }
}

std::int64_t RecurrentCorePass::rnn_multiply_adds(std::size_t rnn) const {
  std::int64_t sum = 0;
  for (const RecurrentLayerPass& layer : rnns_[rnn]) sum += layer.multiply_adds();
  return sum;
}

std::int64_t RecurrentCorePass::multiply_adds() const {
  std::int64_t sum = 0;
  for (std::size_t r = 0; r < rnns_.size(); ++r) sum += rnn_multiply_adds(r);
  return sum;
}

void RecurrentCorePass::forward(const at::Tensor& inputs, const float* episode_starts,
                                const float* state) {
  c10::InferenceMode inference;
  std::copy_n(state, initial_state_.size(), initial_state_.begin());
  if (shared()) {
    forward_rnn(0, inputs, episode_starts);
    return;
  }
  run_both(rnn_multiply_adds(1), [&] { forward_rnn(0, inputs, episode_starts); },
           [&] { forward_rnn(1, inputs, episode_starts); });
}

void RecurrentCorePass::forward_rnn(std::size_t rnn, const at::Tensor& inputs,
                                    const float* episode_starts) {
  const float* initial = initial_state_.data() + static_cast<std::int64_t>(rnn) * rnn_state_size_;
  at::Tensor layer_input = inputs;
  for (std::size_t l = 0; l < rnns_[rnn].size(); ++l) {
    RecurrentLayerPass& layer = rnns_[rnn][l];
    layer.forward(layer_input, episode_starts,
                  initial + static_cast<std::int64_t>(l) * layer_state_size_, state_size_);
    layer_input = layer.outputs();
  }
}

void RecurrentCorePass::write_state(float* state) const {
  for (std::size_t r = 0; r < rnns_.size(); ++r) {
    for (std::size_t l = 0; l < rnns_[r].size(); ++l) {
      rnns_[r][l].write_state(state + static_cast<std::int64_t>(r) * rnn_state_size_ +
                                  static_cast<std::int64_t>(l) * layer_state_size_,
                              state_size_);
    }
  }
}

void RecurrentCorePass::backward(at::Tensor* input_gradient, const float* gradient_stops) {
  c10::InferenceMode inference;
  if (shared()) {
    backward_rnn(0, input_gradient, gradient_stops);
    return;
  }
  at::Tensor* value_side = input_gradient ? &value_input_gradient_ : nullptr;
  run_both(rnn_multiply_adds(1), [&] { backward_rnn(0, input_gradient, gradient_stops); },
           [&] { backward_rnn(1, value_side, gradient_stops); });
  // Both RNNs read the inputs: their gradient is the sum of both.
  if (input_gradient) input_gradient->add_(value_input_gradient_);
}

void RecurrentCorePass::backward_rnn(std::size_t rnn, at::Tensor* input_gradient,
                                     const float* gradient_stops) {
  std::vector<RecurrentLayerPass>& layers = rnns_[rnn];
  for (std::size_t l = layers.size(); l-- > 0;) {
    layers[l].backward(l > 0 ? &layers[l - 1].outputs_gradient() : input_gradient,
                       gradient_stops);
  }
}

}  // namespace mnrl::nn
