#include "nn/dense_pass.h"

#include <ATen/ops/addmv.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "nn/compute_threads.h"
#include "nn/memory_views.h"
#include "nn/relu_arrays.h"
#include "nn/row_major_gemm.h"
#include "nn/tanh_array.h"

namespace mnrl::nn {
namespace {

void activate(Activation activation, const at::Tensor& x) {
  float* p = floats(x);
  const std::int64_t n = x.numel();
  if (activation == Activation::tanh) {
    tanh_of_array(p, p, n);
  } else {
    relu_of_array(p, p, n);
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
    relu_gradient_of_array(y, g, g, n);
  }
}

}  // namespace

std::int64_t checked_batch_size(const char* pass, std::int64_t batch_size) {
  if (batch_size < 1) {
    throw std::invalid_argument(std::string(pass) + ": batch_size must be >= 1, got " +
                                std::to_string(batch_size));
  }
  return batch_size;
}

at::Tensor gradient_of(const at::Tensor& parameter) {
  const at::Tensor& gradient = parameter.grad();
  if (!gradient.defined()) {
    throw std::logic_error("dense pass: a parameter has no .grad() tensor to write into");
  }
  return gradient;
}

DenseLayer::DenseLayer(const torch::nn::Linear& linear, std::int64_t batch_size)
    : weight(linear->weight),
      bias(linear->bias),
      output(at::empty({batch_size, linear->weight.size(0)})),
      output_gradient(at::empty({batch_size, linear->weight.size(0)})) {}

DenseLayer::DenseLayer(const NoisyLinear& layer, std::int64_t batch_size)
    : weight(at::empty_like(layer->mean()->weight)),
      bias(at::empty_like(layer->mean()->bias)),
      output(at::empty({batch_size, layer->mean()->weight.size(0)})),
      output_gradient(at::empty({batch_size, layer->mean()->weight.size(0)})),
      noisy(layer),
      row_scratch_in(at::empty({layer->mean()->weight.size(1)})),
      row_scratch_out(at::empty({layer->mean()->weight.size(0)})) {
  // (A forward-only pass, over a target network, has no gradients to alias.)
  if (layer->mean()->weight.grad().defined()) {
    weight.mutable_grad() = layer->mean()->weight.grad();
    bias.mutable_grad() = layer->mean()->bias.grad();
  }
}

namespace {

// The noisy layer's effective weight and bias: mu + sigma * f(e_out) f(e_in)^T, mu_b + sigma_b *
// f(e_out) (NoisyLinearImpl::forward's, as numbers).
void refresh_noisy_weights(const NoisyLinearImpl& layer, const at::Tensor& weight,
                           const at::Tensor& bias) {
  const std::int64_t out = weight.size(0), in = weight.size(1);
  const float* mu = floats(layer.mean()->weight);
  const float* sigma = floats(layer.weight_sigma());
  const float* e_in = floats(layer.input_noise());
  const float* e_out = floats(layer.output_noise());
  float* w = floats(weight);
  for (std::int64_t r = 0; r < out; ++r) {
    for (std::int64_t c = 0; c < in; ++c) {
      w[r * in + c] = mu[r * in + c] + sigma[r * in + c] * (e_out[r] * e_in[c]);
    }
  }
  const float* mu_b = floats(layer.mean()->bias);
  const float* sigma_b = floats(layer.bias_sigma());
  float* b = floats(bias);
  for (std::int64_t r = 0; r < out; ++r) b[r] = mu_b[r] + sigma_b[r] * e_out[r];
}

// d loss / d sigma = d loss / d effective weight * f(e_out) f(e_in)^T (and for the bias).
void write_sigma_gradients(const NoisyLinearImpl& layer, const at::Tensor& weight_gradient,
                           const at::Tensor& bias_gradient) {
  const std::int64_t out = weight_gradient.size(0), in = weight_gradient.size(1);
  const float* e_in = floats(layer.input_noise());
  const float* e_out = floats(layer.output_noise());
  const float* g = floats(weight_gradient);
  float* sigma_gradient = floats(gradient_of(layer.weight_sigma()));
  for (std::int64_t r = 0; r < out; ++r) {
    for (std::int64_t c = 0; c < in; ++c) {
      sigma_gradient[r * in + c] = g[r * in + c] * (e_out[r] * e_in[c]);
    }
  }
  const float* g_b = floats(bias_gradient);
  float* sigma_b_gradient = floats(gradient_of(layer.bias_sigma()));
  for (std::int64_t r = 0; r < out; ++r) sigma_b_gradient[r] = g_b[r] * e_out[r];
}

// One row through a noisy layer by its factors, without the effective weights: W x + b =
// mu x + mu_b + f(e_out) * (sigma (f(e_in) * x) + sigma_b).
void noisy_row_forward(const NoisyLinearImpl& layer, const at::Tensor& input,
                       const at::Tensor& output, const at::Tensor& scratch_in,
                       const at::Tensor& scratch_out) {
  const std::int64_t out = scratch_out.numel(), in = scratch_in.numel();
  const float* x = floats(input);
  const float* e_in = floats(layer.input_noise());
  float* scaled = floats(scratch_in);
  for (std::int64_t c = 0; c < in; ++c) scaled[c] = e_in[c] * x[c];
  at::Tensor out_row = output.view({-1});
  at::addmv_out(out_row, layer.mean()->bias, layer.mean()->weight, input.view({-1}));
  at::Tensor noise_row = scratch_out;
  at::addmv_out(noise_row, layer.bias_sigma(), layer.weight_sigma(), scratch_in);
  const float* e_out = floats(layer.output_noise());
  const float* noise_part = floats(noise_row);
  float* y = floats(output);
  for (std::int64_t r = 0; r < out; ++r) y[r] += e_out[r] * noise_part[r];
}

// d loss / d x of one row by the factors: mu^T g + f(e_in) * (sigma^T (f(e_out) * g)).
void noisy_row_input_gradient(const NoisyLinearImpl& layer, const at::Tensor& output_gradient,
                              float* input_gradient, bool accumulate, const at::Tensor& scratch_in,
                              const at::Tensor& scratch_out) {
  const std::int64_t out = scratch_out.numel(), in = scratch_in.numel();
  const float* g = floats(output_gradient);
  const float* e_out = floats(layer.output_noise());
  float* scaled = floats(scratch_out);
  for (std::int64_t r = 0; r < out; ++r) scaled[r] = e_out[r] * g[r];
  row_major_gemm(false, false, 1, in, out, g, out, floats(layer.mean()->weight), in,
                 accumulate ? 1.0f : 0.0f, input_gradient, in);
  row_major_gemm(false, false, 1, in, out, scaled, out, floats(layer.weight_sigma()), in, 0.0f,
                 floats(scratch_in), in);
  const float* e_in = floats(layer.input_noise());
  const float* noise_part = floats(scratch_in);
  for (std::int64_t c = 0; c < in; ++c) input_gradient[c] += e_in[c] * noise_part[c];
}

}  // namespace

void DenseLayer::forward(const at::Tensor& input) {
  const std::int64_t rows = input.size(0), width = output.size(1), in = weight.size(1);
  if (noisy && rows == 1) {
    noisy_row_forward(*noisy, input, output, row_scratch_in, row_scratch_out);
    return;
  }
  if (noisy) refresh_noisy_weights(*noisy, weight, bias);
  // A single row goes through a matrix-vector product: OpenBLAS' sgemm packs the whole weight
  // matrix first, which makes it ~6x slower for one row.
  if (rows == 1) {
    at::Tensor out_row = output.view({-1});
    at::addmv_out(out_row, bias, weight, input.view({-1}));
    return;
  }
  // As at::addmm_out(output, bias, input, weight^T): the bias in every row, then the product
  // added.
  float* out = floats(output);
  const float* b = floats(bias);
  for (std::int64_t i = 0; i < rows; ++i) {
    std::memcpy(out + i * width, b, static_cast<std::size_t>(width) * sizeof(float));
  }
  row_major_gemm(false, true, rows, width, in, floats(input), input.stride(0), floats(weight),
                 in, 1.0f, out, width);
}

void DenseLayer::write_parameter_gradients(const at::Tensor& input) const {
  const std::int64_t rows = output_gradient.size(0), width = output_gradient.size(1);
  const std::int64_t in = weight.size(1);
  // d loss / d weight = output_gradient^T input.
  row_major_gemm(true, false, width, in, rows, floats(output_gradient), width, floats(input),
                 input.stride(0), 0.0f, floats(gradient_of(weight)), in);
  // The bias gradient is the batch sum of the output gradient.
  const float* g = floats(output_gradient);
  float* bias_gradient = floats(gradient_of(bias));
  std::memcpy(bias_gradient, g, static_cast<std::size_t>(width) * sizeof(float));
  for (std::int64_t i = 1; i < rows; ++i) {
    for (std::int64_t j = 0; j < width; ++j) bias_gradient[j] += g[i * width + j];
  }
  if (noisy) write_sigma_gradients(*noisy, gradient_of(weight), gradient_of(bias));
}

void DenseLayer::input_gradient(at::Tensor& input_gradient, bool accumulate) const {
  const std::int64_t rows = output_gradient.size(0), width = output_gradient.size(1);
  const std::int64_t in = weight.size(1);
  if (noisy && rows == 1) {  // forward() left the effective weights as they were
    noisy_row_input_gradient(*noisy, output_gradient, floats(input_gradient), accumulate,
                             row_scratch_in, row_scratch_out);
    return;
  }
  row_major_gemm(false, false, rows, in, width, floats(output_gradient), width, floats(weight), in,
                 accumulate ? 1.0f : 0.0f, floats(input_gradient), input_gradient.stride(0));
}

TrunkPass::TrunkPass(const std::vector<torch::nn::Linear>& layers, Activation activation,
                     std::int64_t batch_size, const std::vector<NoisyLinear>& noisy)
    : activation_(activation) {
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (noisy.empty()) {
      layers_.emplace_back(layers[i], batch_size);
    } else {
      layers_.emplace_back(noisy[i], batch_size);
    }
  }
}

std::int64_t TrunkPass::multiply_adds() const {
  std::int64_t sum = 0;
  for (const DenseLayer& layer : layers_) sum += layer.multiply_adds();
  return sum;
}

const at::Tensor& TrunkPass::forward(const at::Tensor& input) {
  input_ = input;
  const at::Tensor* layer_input = &input_;
  for (DenseLayer& layer : layers_) {
    layer.forward(*layer_input);
    activate(activation_, layer.output);
    layer_input = &layer.output;
  }
  return features();
}

void TrunkPass::backward(at::Tensor* input_gradient) {
  for (std::size_t l = layers_.size(); l-- > 0;) {
    DenseLayer& layer = layers_[l];
    multiply_by_derivative(activation_, layer.output, layer.output_gradient);
    const at::Tensor& input = l == 0 ? input_ : layers_[l - 1].output;
    at::Tensor* below_gradient = l == 0 ? input_gradient : &layers_[l - 1].output_gradient;
    if (below_gradient == nullptr) {
      layer.write_parameter_gradients(input);
      break;
    }
    run_both(layer.multiply_adds(), [&] { layer.write_parameter_gradients(input); },
             [&] { layer.input_gradient(*below_gradient, /*accumulate=*/false); });
  }
}

void TrunkPass::input_gradient(at::Tensor& input_gradient) {
  for (std::size_t l = layers_.size(); l-- > 0;) {
    DenseLayer& layer = layers_[l];
    multiply_by_derivative(activation_, layer.output, layer.output_gradient);
    layer.input_gradient(l == 0 ? input_gradient : layers_[l - 1].output_gradient,
                         /*accumulate=*/false);
  }
}

}  // namespace mnrl::nn
