#include "nn/q_network_pass.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include <ATen/ops/addmm.h>
#include <ATen/ops/addmv.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/mm.h>
#include <c10/core/InferenceMode.h>

#include "nn/memory_views.h"
#include "nn/tanh_array.h"

namespace mnrl::nn {
namespace {

float* floats(const at::Tensor& t) { return t.data_ptr<float>(); }

void activate(Activation activation, const at::Tensor& x) {
  float* p = floats(x);
  const std::int64_t n = x.numel();
  if (activation == Activation::tanh) {
    tanh_of_array(p, p, n);
  } else {
    for (std::int64_t i = 0; i < n; ++i) p[i] = p[i] > 0.0f ? p[i] : 0.0f;
  }
}

// gradient *= activation'(pre-activation), from the activation's output: relu' = [output > 0]
// (0 at 0, as autograd's threshold_backward), tanh' = 1 - output^2.
void multiply_by_derivative(Activation activation, const at::Tensor& output,
                            const at::Tensor& gradient) {
  const float* y = floats(output);
  float* g = floats(gradient);
  const std::int64_t n = output.numel();
  if (activation == Activation::tanh) {
    for (std::int64_t i = 0; i < n; ++i) g[i] *= 1.0f - y[i] * y[i];
  } else {
    for (std::int64_t i = 0; i < n; ++i) g[i] = y[i] > 0.0f ? g[i] : 0.0f;
  }
}

// out = input weight^T + bias. A single row goes through a matrix-vector product: OpenBLAS'
// sgemm packs the whole weight matrix first, which makes it ~6x slower for one row.
void linear_out(at::Tensor& out, const at::Tensor& bias, const at::Tensor& input,
                const at::Tensor& weight) {
  if (input.size(0) == 1) {
    at::Tensor out_row = out.view({-1});
    at::addmv_out(out_row, bias, weight, input.view({-1}));
  } else {
    at::addmm_out(out, bias, input, weight.t());
  }
}

// The module's parameter tensors and preallocated [batch, out] buffers for one linear layer.
template <class Layer>
Layer make_layer(const torch::nn::Linear& linear, std::int64_t batch_size) {
  const std::int64_t out = linear->weight.size(0);
  return {linear->weight, linear->bias, at::empty({batch_size, out}),
          at::empty({batch_size, out})};
}

// d loss / d parameter, which FlatParameters and every optimizer keep defined.
at::Tensor gradient_of(const at::Tensor& parameter) {
  const at::Tensor& gradient = parameter.grad();
  if (!gradient.defined()) {
    throw std::logic_error("QNetworkPass: a parameter has no .grad() tensor to write into");
  }
  return gradient;
}

}  // namespace

QNetworkPass::QNetworkPass(const QNetwork& network, std::int64_t batch_size)
    : activation_(network->options.activation()),
      dueling_(network->options.dueling()),
      batch_size_(batch_size),
      num_actions_(network->options.num_actions()),
      q_(at::empty({batch_size, num_actions_})) {
  if (batch_size < 1) {
    throw std::invalid_argument("QNetworkPass: batch_size must be >= 1, got " +
                                std::to_string(batch_size));
  }
  for (const auto& linear : network->trunk()->layers()) {
    trunk_.push_back(make_layer<Layer>(linear, batch_size));
  }
  advantage_head_ = make_layer<Layer>(network->advantage_head(), batch_size);
  if (dueling_) value_head_ = make_layer<Layer>(network->value_head(), batch_size);
}

const float* QNetworkPass::forward(const float* observations) {
  c10::InferenceMode inference;
  const std::int64_t observation_size =
      trunk_.empty() ? advantage_head_.weight.size(1) : trunk_.front().weight.size(1);
  input_ = view_floats(observations, batch_size_, observation_size);
  const at::Tensor* features = &input_;
  for (Layer& layer : trunk_) {
    linear_out(layer.output, layer.bias, *features, layer.weight);
    activate(activation_, layer.output);
    features = &layer.output;
  }
  linear_out(advantage_head_.output, advantage_head_.bias, *features, advantage_head_.weight);
  if (!dueling_) return floats(advantage_head_.output);

  // Q = V + A - mean_a A (Wang et al. 2016, eq. 9).
  linear_out(value_head_.output, value_head_.bias, *features, value_head_.weight);
  const float* a = floats(advantage_head_.output);
  const float* v = floats(value_head_.output);
  float* q = floats(q_);
  for (std::int64_t i = 0; i < batch_size_; ++i) {
    const float* a_row = a + i * num_actions_;
    float mean = 0.0f;
    for (std::int64_t j = 0; j < num_actions_; ++j) mean += a_row[j];
    mean /= static_cast<float>(num_actions_);
    for (std::int64_t j = 0; j < num_actions_; ++j) q[i * num_actions_ + j] = v[i] + a_row[j] - mean;
  }
  return q;
}

void QNetworkPass::write_parameter_gradients(const Layer& layer, const at::Tensor& input) const {
  at::Tensor weight_gradient = gradient_of(layer.weight);
  at::mm_out(weight_gradient, layer.output_gradient.t(), input);
  // The bias gradient is the batch sum of the output gradient.
  const float* g = floats(layer.output_gradient);
  float* bias_gradient = floats(gradient_of(layer.bias));
  const std::int64_t width = layer.output_gradient.size(1);
  std::memcpy(bias_gradient, g, static_cast<std::size_t>(width) * sizeof(float));
  for (std::int64_t i = 1; i < batch_size_; ++i) {
    for (std::int64_t j = 0; j < width; ++j) bias_gradient[j] += g[i * width + j];
  }
}

void QNetworkPass::backward(const float* q_gradients) {
  c10::InferenceMode inference;
  float* advantage_gradient = floats(advantage_head_.output_gradient);
  if (dueling_) {
    // dQ_j/dA_k = [j == k] - 1/n and dQ_j/dV = 1.
    float* value_gradient = floats(value_head_.output_gradient);
    for (std::int64_t i = 0; i < batch_size_; ++i) {
      const float* dq = q_gradients + i * num_actions_;
      float sum = 0.0f;
      for (std::int64_t j = 0; j < num_actions_; ++j) sum += dq[j];
      value_gradient[i] = sum;
      const float mean = sum / static_cast<float>(num_actions_);
      for (std::int64_t j = 0; j < num_actions_; ++j) {
        advantage_gradient[i * num_actions_ + j] = dq[j] - mean;
      }
    }
  } else {
    std::memcpy(advantage_gradient, q_gradients,
                static_cast<std::size_t>(batch_size_ * num_actions_) * sizeof(float));
  }

  const at::Tensor& features = trunk_.empty() ? input_ : trunk_.back().output;
  write_parameter_gradients(advantage_head_, features);
  if (dueling_) write_parameter_gradients(value_head_, features);
  if (trunk_.empty()) return;

  at::Tensor& features_gradient = trunk_.back().output_gradient;
  at::mm_out(features_gradient, advantage_head_.output_gradient, advantage_head_.weight);
  if (dueling_) features_gradient.addmm_(value_head_.output_gradient, value_head_.weight);
  for (std::size_t l = trunk_.size(); l-- > 0;) {
    Layer& layer = trunk_[l];
    multiply_by_derivative(activation_, layer.output, layer.output_gradient);
    write_parameter_gradients(layer, l == 0 ? input_ : trunk_[l - 1].output);
    if (l > 0) at::mm_out(trunk_[l - 1].output_gradient, layer.output_gradient, layer.weight);
  }
}

}  // namespace mnrl::nn
