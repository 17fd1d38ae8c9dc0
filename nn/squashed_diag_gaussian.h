#pragma once

#include <ATen/core/Tensor.h>

#include "nn/action_distribution.h"
#include "nn/diag_gaussian.h"

namespace mnrl::nn {

// A diagonal Gaussian squashed into (-1, 1) by tanh, as Stable-Baselines3's
// SquashedDiagGaussianDistribution: actions = tanh(u) with u ~ N(mean, exp(log_std)^2), `mean` and
// `log_std` shaped as for DiagGaussian. Scale actions to the environment's bounds outside.
//
// log_prob(a) = gaussian.log_prob(atanh(a)) - sum over dim of log(1 - a^2 + kEpsilon), the change
// of variables with SB3's epsilon. Before atanh the actions are clamped to
// [-1 + machine epsilon, 1 - machine epsilon] of their dtype (float32 or float64), as SB3's
// TanhBijector.inverse does, so actions of exactly +-1 have a finite log-probability.
// In float32, tanh saturates to exactly +-1 for |u| above about 9; sample() can then return +-1.
//
// entropy() has no closed form. SB3 returns None and uses -log_prob of the actions instead; here
// it is a one-sample Monte Carlo estimate of -E[log_prob(tanh(u))], whose expectation is the true
// entropy: H[tanh(u)] = H[u] + E[sum log(1 - tanh(u)^2)], with H[u] in closed form and the
// expectation taken at one reparameterized draw u = mean + std * noise per row. Because the draw
// is reparameterized (not sample(), which is detached), its gradient is an unbiased estimate of
// the entropy's gradient; -log_prob at a detached sample would have a gradient of mean zero.
// Each call draws fresh noise from torch's default generator.
class SquashedDiagGaussian final : public ActionDistribution {
 public:
  static constexpr double kEpsilon = 1e-6;  // SB3's epsilon in the log(1 - a^2) correction

  SquashedDiagGaussian(const at::Tensor& mean, const at::Tensor& log_std);

  at::Tensor sample() const override;  // tanh of a Gaussian draw, detached, in [-1, 1]
  at::Tensor mode() const override;    // tanh(mean)
  at::Tensor log_prob(const at::Tensor& actions) const override;  // actions: [batch, dim]
  at::Tensor entropy() const override;                            // one-sample estimate, see above

  // log_prob(tanh(pre_tanh)) without the atanh round trip, which loses precision as |a| -> 1:
  // use it when the Gaussian draw behind an action is known (SB3's log_prob(actions,
  // gaussian_actions)).
  at::Tensor log_prob_from_pre_tanh(const at::Tensor& pre_tanh) const;

  const DiagGaussian& gaussian() const { return gaussian_; }

 private:
  // gaussian.log_prob(pre_tanh) - sum log(1 - actions^2 + kEpsilon).
  at::Tensor squashed_log_prob(const at::Tensor& pre_tanh, const at::Tensor& actions) const;

  DiagGaussian gaussian_;
};

}  // namespace mnrl::nn
