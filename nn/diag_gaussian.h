#pragma once

#include <ATen/core/Tensor.h>

#include "nn/action_distribution.h"

namespace mnrl::nn {

// A batch of Gaussians with diagonal covariance, as Stable-Baselines3's
// DiagGaussianDistribution: `mean` is [batch, dim]; `log_std` is [dim] (one learned vector shared
// by every row, SB3's state-independent std) or [batch, dim]. Actions are [batch, dim] float;
// log_prob and entropy sum over dim and are [batch]. Gradients flow from log_prob, entropy and
// rsample to both `mean` and `log_std`.
class DiagGaussian final : public ActionDistribution {
 public:
  DiagGaussian(const at::Tensor& mean, const at::Tensor& log_std);

  at::Tensor sample() const override;  // mean + std * noise, detached
  at::Tensor mode() const override;    // the mean
  at::Tensor log_prob(const at::Tensor& actions) const override;
  // Closed form: sum over dim of 0.5 + 0.5 * log(2 pi) + log_std.
  at::Tensor entropy() const override;

  // The same draw as sample(), but differentiable w.r.t. mean and log_std (the
  // reparameterization trick): the noise is drawn from torch's default generator.
  at::Tensor rsample() const;

  const at::Tensor& mean() const { return mean_; }
  const at::Tensor& log_std() const { return log_std_; }  // [batch, dim], broadcast if needed

 private:
  at::Tensor mean_;
  at::Tensor log_std_;
};

}  // namespace mnrl::nn
