#include "nn/fused_adam.h"

#include <torch/utils.h>

#include <cmath>

#include "nn/compute_threads.h"
#include "nn/optimizer_state_key.h"

namespace mnrl::nn {
namespace {

// One Adam step over n floats, the per-element arithmetic of Adam::step in its order.
// Vectorized by the compiler (this file is built with -fno-math-errno, so sqrt vectorizes),
// with AVX2 where the CPU has it.
__attribute__((target_clones("avx2", "default")))
void adam_update(float* value, const float* gradient, float* m, float* v, std::int64_t n,
                 float decay1, float rate1, float decay2, float rate2, float step_size,
                 float sqrt_correction2, float eps) {
  for (std::int64_t i = 0; i < n; ++i) {
    const float g = gradient[i];
    m[i] = m[i] * decay1 + rate1 * g;
    v[i] = v[i] * decay2 + rate2 * g * g;
    value[i] -= step_size * (m[i] / (std::sqrt(v[i]) / sqrt_correction2 + eps));
  }
}

constexpr std::size_t kFloatsWorthSplitting = 8192;

// The fused loop runs on the CPU: a tensor elsewhere takes LibTorch's Adam.
bool contiguous_float(const at::Tensor& t) {
  return t.scalar_type() == at::kFloat && t.is_contiguous() && t.is_cpu();
}

}  // namespace

bool FusedAdam::fusable() const {
  for (const auto& group : param_groups_) {
    const auto& options = static_cast<const torch::optim::AdamOptions&>(group.options());
    if (options.weight_decay() != 0.0 || options.amsgrad()) return false;
    for (const auto& p : group.params()) {
      if (p.grad().defined() && !(contiguous_float(p) && contiguous_float(p.grad()))) return false;
    }
  }
  return true;
}

torch::Tensor FusedAdam::step(LossClosure closure) {
  if (!fusable()) return Adam::step(std::move(closure));
  torch::NoGradGuard no_grad;
  torch::Tensor loss;
  if (closure) {
    at::AutoGradMode enable_grad(true);
    loss = closure();
  }
  for (auto& group : param_groups_) {
    const auto& options = static_cast<const torch::optim::AdamOptions&>(group.options());
    const auto [beta1, beta2] = options.betas();
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& state = adam_state_of(state_, p);
      state.step(state.step() + 1);
      // Scalars rounded to float as LibTorch rounds them for float tensors.
      const auto decay1 = static_cast<float>(beta1), decay2 = static_cast<float>(beta2);
      const auto rate1 = static_cast<float>(1.0 - beta1), rate2 = static_cast<float>(1.0 - beta2);
      const double bias_correction1 = 1.0 - std::pow(beta1, state.step());
      const double bias_correction2 = 1.0 - std::pow(beta2, state.step());
      const auto step_size = static_cast<float>(options.lr() / bias_correction1);
      const auto sqrt_correction2 = static_cast<float>(std::sqrt(bias_correction2));
      const auto eps = static_cast<float>(options.eps());
      float* value = p.data_ptr<float>();
      const float* gradient = p.grad().data_ptr<float>();
      float* m = state.exp_avg().data_ptr<float>();
      float* v = state.exp_avg_sq().data_ptr<float>();
      const auto update = [&](std::size_t begin, std::size_t end) {
        const auto i = static_cast<std::int64_t>(begin);
        adam_update(value + i, gradient + i, m + i, v + i, static_cast<std::int64_t>(end - begin),
                    decay1, rate1, decay2, rate2, step_size, sqrt_correction2, eps);
      };
      // Each float's update is independent of the others': ranges on the compute threads give
      // the same bits. Below a few thousand floats a hand-off costs more than it saves.
      const auto n = static_cast<std::size_t>(p.numel());
      if (n >= kFloatsWorthSplitting) {
        run_chunks(n, update);
      } else {
        update(0, n);
      }
    }
  }
  return loss;
}

}  // namespace mnrl::nn
