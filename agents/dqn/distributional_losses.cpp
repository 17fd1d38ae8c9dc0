#include "agents/dqn/distributional_losses.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/abs.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/erf.h>
#include <ATen/ops/erfinv.h>
#include <ATen/ops/linspace.h>
#include <ATen/ops/pow.h>
#include <ATen/ops/where.h>

#include <cmath>
#include <stdexcept>

namespace mnrl::agents {

at::Tensor categorical_support(std::int64_t atoms, double v_min, double v_max,
                               const at::TensorOptions& options) {
  return at::linspace(v_min, v_max, atoms, options.dtype(at::kFloat));
}

at::Tensor categorical_projection(const at::Tensor& rewards, const at::Tensor& bootstrap_discounts,
                                  const at::Tensor& next_probabilities, double v_min,
                                  double v_max) {
  const std::int64_t atoms = next_probabilities.size(1);
  const at::Tensor support = categorical_support(atoms, v_min, v_max, next_probabilities.options());
  const double delta = (v_max - v_min) / static_cast<double>(atoms - 1);
  // [B, K]: where each atom of the next distribution lands.
  const at::Tensor landed =
      (rewards.unsqueeze(1) + bootstrap_discounts.unsqueeze(1) * support.unsqueeze(0))
          .clamp(v_min, v_max);
  // [B, K_i, K_j]: the share of landed atom j that atom i receives.
  const at::Tensor shares =
      (1.0 - (landed.unsqueeze(1) - support.view({1, atoms, 1})).abs() / delta).clamp(0.0, 1.0);
  return (shares * next_probabilities.unsqueeze(1)).sum(-1);
}

at::Tensor quantile_huber_loss(const at::Tensor& quantiles, const at::Tensor& targets,
                               const at::Tensor& fractions, double kappa) {
  // [B, N, N']: u_ij = target_j - quantile_i.
  const at::Tensor u = targets.unsqueeze(1) - quantiles.unsqueeze(2);
  const at::Tensor magnitude = u.abs();
  const at::Tensor huber =
      at::where(magnitude <= kappa, 0.5 * u * u, kappa * (magnitude - 0.5 * kappa));
  const at::Tensor tau = fractions.dim() == 1 ? fractions.view({1, -1, 1}) : fractions.unsqueeze(2);
  const at::Tensor weight = (tau - (u.detach() < 0).to(u.scalar_type())).abs();
  return (weight * huber / kappa).mean(2).sum(1);
}

at::Tensor quantile_midpoints(std::int64_t n, const at::TensorOptions& options) {
  return (at::arange(n, options.dtype(at::kFloat)) + 0.5) / static_cast<double>(n);
}

at::Tensor distorted_fractions(const at::Tensor& tau, const std::string& risk, double eta) {
  if (risk == "neutral") return tau;
  if (risk == "cvar") return eta * tau;
  if (risk == "wang") {
    // Phi(x) = (1 + erf(x / sqrt 2)) / 2, Phi^-1(tau) = sqrt 2 erfinv(2 tau - 1).
    const at::Tensor normal = std::sqrt(2.0) * at::erfinv(2.0 * tau - 1.0);
    return 0.5 * (1.0 + at::erf((normal + eta) / std::sqrt(2.0)));
  }
  if (risk == "pow") {
    const double exponent = 1.0 / (1.0 + std::abs(eta));
    return eta >= 0 ? at::pow(tau, exponent) : 1.0 - at::pow(1.0 - tau, exponent);
  }
  throw std::invalid_argument("unknown risk distortion '" + risk + "'");
}

}  // namespace mnrl::agents
