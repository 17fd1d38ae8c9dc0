#include "agents/policy_sampling.h"

#include <algorithm>
#include <cmath>

#include <ATen/ops/rand.h>
#include <ATen/ops/randn.h>

namespace mnrl::agents {
namespace {

// Inverse CDF: the first index whose cumulative probability exceeds u (the last one if
// rounding leaves the total below u).
void sample_categorical(const float* logits, std::int64_t rows, std::int64_t n, float* actions,
                        float* log_probs) {
  const at::Tensor uniforms = at::rand({rows});
  const float* u = uniforms.data_ptr<float>();
  for (std::int64_t i = 0; i < rows; ++i) {
    const float* row = logits + i * n;
    const float max = *std::max_element(row, row + n);
    float sum = 0;
    for (std::int64_t k = 0; k < n; ++k) sum += std::exp(row[k] - max);
    const float threshold = u[i] * sum;
    std::int64_t chosen = n - 1;
    float cumulative = 0;
    for (std::int64_t k = 0; k < n; ++k) {
      cumulative += std::exp(row[k] - max);
      if (cumulative > threshold) {
        chosen = k;
        break;
      }
    }
    actions[i] = static_cast<float>(chosen);
    log_probs[i] = row[chosen] - (max + std::log(sum));
  }
}

// action = mean + std * e with e ~ N(0, 1); log pi = sum_j (-e_j^2 / 2 - log_std_j - log(2 pi) / 2).
void sample_gaussian(const float* means, const float* log_std, std::int64_t rows, std::int64_t n,
                     float* actions, float* log_probs) {
  const at::Tensor noise = at::randn({rows, n});
  const float* e = noise.data_ptr<float>();
  for (std::int64_t i = 0; i < rows; ++i) {
    float log_prob = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      const float draw = e[i * n + j];
      actions[i * n + j] = means[i * n + j] + std::exp(log_std[j]) * draw;
      log_prob += draw * draw * -0.5f - log_std[j] - kHalfLog2Pi;
    }
    log_probs[i] = log_prob;
  }
}

}  // namespace

void sample_actions(const PolicyHead& head, const float* outputs, std::int64_t rows,
                    float* actions, float* log_probs) {
  if (head.log_std) {
    sample_gaussian(outputs, head.log_std, rows, head.action_size, actions, log_probs);
  } else {
    sample_categorical(outputs, rows, head.action_size, actions, log_probs);
  }
}

}  // namespace mnrl::agents
