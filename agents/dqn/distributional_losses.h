#pragma once

#include <ATen/core/Tensor.h>

#include <string>

namespace mnrl::agents {

// The tensor arithmetic of the distributional DQN variants (return_distribution.h), each
// checked against its formula in tests/agents/distributional_losses_test.cpp.

// C51's projected Bellman target (Bellemare et al. 2017, algorithm 1): the distribution of
// r + d z_j, z_j with probability next_probabilities[:, j], each clamped into [z_0, z_K-1] and
// split between its two neighbouring atoms in proportion to closeness, as
// m_i = sum_j clamp(1 - |clamp(r + d z_j) - z_i| / dz, 0, 1) p_j (Dopamine's form, which keeps
// the whole mass when r + d z_j falls on an atom). rewards, bootstrap_discounts [B] (0 where the
// episode terminated: all the mass at r), next_probabilities [B, K]; the support is K atoms
// evenly spaced from v_min to v_max (categorical_support). No host read: a CUDA graph takes it.
at::Tensor categorical_projection(const at::Tensor& rewards, const at::Tensor& bootstrap_discounts,
                                  const at::Tensor& next_probabilities, double v_min, double v_max);

// The K atoms z_i = v_min + i (v_max - v_min) / (K - 1), [K] floats on `options`' device.
at::Tensor categorical_support(std::int64_t atoms, double v_min, double v_max,
                               const at::TensorOptions& options);

// The quantile regression loss of `quantiles` [B, N] at `fractions` ([B, N] or [N]) against
// `targets` [B, N'] (Dabney et al. 2018b, eq. 10): per row, the sum over i of the mean over j of
// |tau_i - 1{u_ij < 0}| L_kappa(u_ij) / kappa, u_ij = targets_j - quantiles_i, with L_kappa the
// Huber loss of threshold kappa (SB3-contrib's quantile_huber_loss at kappa = 1). [B].
at::Tensor quantile_huber_loss(const at::Tensor& quantiles, const at::Tensor& targets,
                               const at::Tensor& fractions, double kappa);

// The midpoints (2i + 1) / 2N of N equal bins of [0, 1], [N] floats on `options`' device:
// QR-DQN's fractions.
at::Tensor quantile_midpoints(std::int64_t n, const at::TensorOptions& options);

// IQN's distortion risk measures (Dabney et al. 2018a, section 3.1) of fractions `tau`:
// neutral: tau; cvar: eta tau; wang: Phi(Phi^-1(tau) + eta); pow: tau^(1 / (1 + |eta|)) for
// eta >= 0, 1 - (1 - tau)^(1 / (1 + |eta|)) for eta < 0.
at::Tensor distorted_fractions(const at::Tensor& tau, const std::string& risk, double eta);

}  // namespace mnrl::agents
