#pragma once

#include <cstdint>

namespace mnrl::nn {

// The ReLU of the hand-written passes over contiguous floats, as selects without branches:
// a branch per unit mispredicts on the half of the units that are off, which cost more than the
// arithmetic (docs/BENCHMARKS.md, the conv pass in a column layout). Inline: the conv pass calls
// them on runs of a few dozen floats.

// y[i] = max(x[i], 0) (as tanh_of_array); y may be x.
inline void relu_of_array(const float* x, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

// gradient_to[i] = gradient[i] where output[i] > 0, else 0: relu' from the ReLU's output, 0 at
// 0 as autograd's threshold_backward. gradient_to may be gradient.
inline void relu_gradient_of_array(const float* output, const float* gradient,
                                   float* gradient_to, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    const float g = gradient[i];  // loaded whatever the output: a select, not a branch
    gradient_to[i] = output[i] > 0.0f ? g : 0.0f;
  }
}

}  // namespace mnrl::nn
