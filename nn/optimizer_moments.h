#pragma once

#include <ATen/core/Tensor.h>
#include <torch/optim/optimizer.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace mnrl::nn {

// What an optimizer keeps per parameter, for one whose state is that and nothing else: Adam
// without amsgrad (exp_avg, exp_avg_sq) or RMSprop without momentum or centering
// (square_avg), and the step count. Moments are tensors shaped like their parameter; they move
// between optimizers over other cuts of the same values (a pipeline's stages and one flat
// parameter tensor).
struct ParameterMoments {
  std::int64_t step = 0;
  std::vector<at::Tensor> tensors;
};

// How many moment tensors `optimizer` keeps per parameter (2 for Adam, 1 for RMSprop); throws
// std::invalid_argument for another optimizer or option.
int moment_count(const torch::optim::Optimizer& optimizer);
// `parameter`'s (the tensors themselves, not copies), or nullopt before its first step.
std::optional<ParameterMoments> moments_of(const torch::optim::Optimizer& optimizer,
                                           const at::Tensor& parameter);
// Sets `parameter`'s state to `moments` (copies), made where it has none.
void set_moments(torch::optim::Optimizer& optimizer, const at::Tensor& parameter,
                 const ParameterMoments& moments);

}  // namespace mnrl::nn
