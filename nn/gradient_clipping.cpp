#include "nn/gradient_clipping.h"

#include <cstdint>

#include <torch/types.h>  // before clip_grad.h, which uses its names
#include <torch/nn/utils/clip_grad.h>

namespace mnrl::nn {
namespace {

// Sum of squares over 16 float lanes (vectorized, with AVX2 where the CPU has it), added up in
// double.
__attribute__((target_clones("avx2", "default")))
double sum_of_squares(const float* x, std::int64_t n) {
  constexpr std::int64_t kLanes = 16;
  float lanes[kLanes] = {};
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (std::int64_t j = 0; j < kLanes; ++j) lanes[j] += x[i + j] * x[i + j];
  }
  double sum = 0.0;
  for (const float lane : lanes) sum += lane;
  for (; i < n; ++i) sum += static_cast<double>(x[i]) * x[i];
  return sum;
}

}  // namespace

void clip_gradient_norm(const at::Tensor& flat, double max_norm) {
  const at::Tensor& gradient = flat.grad();
  if (!gradient.is_cpu()) {
    clip_gradient_norm_on_device(flat, max_norm);
    return;
  }
  // One thread: the gradient is a few hundred kilobytes, and a hand-off to a second thread cost
  // more than it saved (measured).
  const double squares = sum_of_squares(gradient.data_ptr<float>(), gradient.numel());
  const double bound = 0.99 * max_norm;
  if (squares < bound * bound) return;  // false for NaN
  torch::nn::utils::clip_grad_norm_(flat, max_norm);
}

void clip_gradient_norm_on_device(const at::Tensor& flat, double max_norm) {
  torch::NoGradGuard no_grad;
  const at::Tensor& gradient = flat.grad();
  gradient.mul_((max_norm / (gradient.norm() + 1e-6)).clamp_max(1.0));
}

}  // namespace mnrl::nn
