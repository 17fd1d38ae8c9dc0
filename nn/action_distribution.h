#pragma once

#include <ATen/core/Tensor.h>

namespace mnrl::nn {

// A batch of action distributions, one per row, as a policy head produces them. Discrete
// policies give indices ([batch] int64); continuous ones give values ([batch, action_size]
// float). Log-probabilities and entropies are per row ([batch]), summed over action dimensions.
class ActionDistribution {
 public:
  virtual ~ActionDistribution() = default;

  // Draws from torch's default generator, without gradient (gSDE's exploration distribution
  // adds its current exploration noise instead: nn/state_dependent_noise.h).
  virtual at::Tensor sample() const = 0;
  // The most likely action (the mean for a Gaussian), for greedy evaluation.
  virtual at::Tensor mode() const = 0;
  virtual at::Tensor log_prob(const at::Tensor& actions) const = 0;
  // The exact entropy where it has a closed form; otherwise an estimate (documented there).
  virtual at::Tensor entropy() const = 0;
};

}  // namespace mnrl::nn
