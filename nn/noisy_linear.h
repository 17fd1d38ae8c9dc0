#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/cloneable.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <vector>

namespace mnrl::core {
class Rng;
}

namespace mnrl::nn {

// A linear layer with factorised Gaussian noise (Fortunato et al. 2018, "Noisy Networks for
// Exploration", section 3.2): y = (mu_W + sigma_W * (f(e_out) f(e_in)^T)) x + mu_b + sigma_b *
// f(e_out), with f(e) = sign(e) sqrt(|e|). The means are a torch::nn::Linear (LibTorch's
// initialization is the paper's U(-1/sqrt(p), 1/sqrt(p)) for a layer of p inputs), the sigmas
// start at sigma0 / sqrt(p). The noise lives in two buffers that only set_noise() writes: while
// they hold zeros (as they start) the layer is its means alone, the noise-free greedy network.
// Cloneable (a pipeline stage's weight stash clones its blocks).
class NoisyLinearImpl : public torch::nn::Cloneable<NoisyLinearImpl> {
 public:
  NoisyLinearImpl(std::int64_t in_features, std::int64_t out_features, double sigma0);
  void reset() override;  // (re)makes the layer's tensors as the constructor does

  at::Tensor forward(const at::Tensor& x);
  // The mean weights and biases (the layer without noise: export, hand-written passes).
  const torch::nn::Linear& mean() const { return mean_; }
  // in_features + out_features: f(e_in) then f(e_out), as set_noise() takes them.
  std::int64_t noise_size() const;
  // Copies `noise` [noise_size()] (on the layer's device) into the noise buffers, in place: a
  // CUDA graph that captured forward() sees each new noise.
  void set_noise(const at::Tensor& noise);

  const at::Tensor& weight_sigma() const { return weight_sigma_; }
  const at::Tensor& bias_sigma() const { return bias_sigma_; }
  const at::Tensor& input_noise() const { return input_noise_; }    // f(e_in)
  const at::Tensor& output_noise() const { return output_noise_; }  // f(e_out)

 private:
  std::int64_t in_features_, out_features_;
  double sigma0_;
  torch::nn::Linear mean_{nullptr};
  at::Tensor weight_sigma_, bias_sigma_;   // parameters
  at::Tensor input_noise_, output_noise_;  // buffers: f(e_in) [in], f(e_out) [out]
};
TORCH_MODULE(NoisyLinear);

// `size` values f(e), e ~ N(0, 1) drawn from `rng`: the noise of layers whose noise sizes sum
// to `size`, laid out as set_layer_noise() takes it.
void draw_factorised_noise(core::Rng& rng, std::int64_t size, float* out);

// The noise of every layer, consecutive in `noise` [sum of noise_size()], into each layer.
void set_layer_noise(const std::vector<NoisyLinear>& layers, const at::Tensor& noise);
std::int64_t noise_size(const std::vector<NoisyLinear>& layers);

}  // namespace mnrl::nn
