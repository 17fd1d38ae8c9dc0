#include "nn/noisy_linear.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/full.h>
#include <ATen/ops/linear.h>
#include <ATen/ops/zeros.h>
#include <torch/utils.h>

#include <cmath>

#include "core/rng.h"

namespace mnrl::nn {

NoisyLinearImpl::NoisyLinearImpl(std::int64_t in_features, std::int64_t out_features, double sigma0)
    : in_features_(in_features), out_features_(out_features), sigma0_(sigma0) {
  reset();
}

void NoisyLinearImpl::reset() {
  mean_ = register_module("mean", torch::nn::Linear(in_features_, out_features_));
  const double sigma = sigma0_ / std::sqrt(static_cast<double>(in_features_));
  weight_sigma_ =
      register_parameter("weight_sigma", at::full({out_features_, in_features_}, sigma));
  bias_sigma_ = register_parameter("bias_sigma", at::full({out_features_}, sigma));
  input_noise_ = register_buffer("input_noise", at::zeros({in_features_}));
  output_noise_ = register_buffer("output_noise", at::zeros({out_features_}));
}

at::Tensor NoisyLinearImpl::forward(const at::Tensor& x) {
  // (sigma_W * (e_out e_in^T)) x = e_out * (sigma_W (e_in * x)): two products with the layer's
  // weights instead of a noisy weight matrix built per call (an [out, in] outer product, which
  // costs more than the product itself when acting on one observation).
  const at::Tensor noise = at::linear(x * input_noise_, weight_sigma_) * output_noise_;
  return mean_->forward(x) + noise + bias_sigma_ * output_noise_;
}

std::int64_t NoisyLinearImpl::noise_size() const {
  return input_noise_.numel() + output_noise_.numel();
}

void NoisyLinearImpl::set_noise(const at::Tensor& noise) {
  torch::NoGradGuard no_grad;
  const std::int64_t in = input_noise_.numel();
  input_noise_.copy_(noise.narrow(0, 0, in));
  output_noise_.copy_(noise.narrow(0, in, output_noise_.numel()));
}

void draw_factorised_noise(core::Rng& rng, std::int64_t size, float* out) {
  for (std::int64_t i = 0; i < size; ++i) {
    const double e = rng.normal();
    out[i] = static_cast<float>(std::copysign(std::sqrt(std::abs(e)), e));
  }
}

void set_layer_noise(const std::vector<NoisyLinear>& layers, const at::Tensor& noise) {
  std::int64_t offset = 0;
  for (NoisyLinear layer : layers) {  // a holder: copying it shares the layer
    layer->set_noise(noise.narrow(0, offset, layer->noise_size()));
    offset += layer->noise_size();
  }
}

std::int64_t noise_size(const std::vector<NoisyLinear>& layers) {
  std::int64_t size = 0;
  for (const NoisyLinear& layer : layers) size += layer->noise_size();
  return size;
}

}  // namespace mnrl::nn
