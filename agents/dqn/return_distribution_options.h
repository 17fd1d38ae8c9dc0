#pragma once

#include <cstdint>
#include <string>

#include "core/config.h"

namespace mnrl::agents {

// What the DQN family learns of each action's return beyond its mean, and noisy-net
// exploration: keys of the `dqn:` and `apex_dqn:` sections. Defaults are the papers' (C51:
// Bellemare et al. 2017; QR-DQN: Dabney et al. 2018b, SB3-contrib's n_quantiles; IQN: Dabney et
// al. 2018a as Dopamine runs it; noisy nets: Fortunato et al. 2018, factorised noise).
struct ReturnDistributionOptions {
  std::string distributional = "none";        // none (DQN) | c51 | qr | iqn
  std::int64_t atoms = 51;                    // c51: atoms of the support
  double v_min = -10.0, v_max = 10.0;         // c51: the support's ends
  std::int64_t n_quantiles = 200;             // qr: quantiles per action
  std::int64_t quantile_samples = 64;         // iqn: N, fractions for the online quantiles
  std::int64_t target_quantile_samples = 64;  // iqn: N', for the target quantiles
  std::int64_t policy_quantile_samples = 32;  // iqn: K, for the policy's Q-values
  std::int64_t quantile_embedding = 64;       // iqn: cosines embedding a fraction
  double kappa = 1.0;                         // qr, iqn: the quantile Huber loss's threshold
  std::string risk = "neutral";               // iqn: the policy's distortion of fractions
  double risk_eta = 0.0;                      // iqn: the distortion's parameter
  bool noisy = false;                         // noisy nets explore instead of epsilon-greedy
  double noisy_sigma0 = 0.5;                  // noisy nets' initial sigma * sqrt(inputs)

  bool implicit() const { return distributional == "iqn"; }

  void visit(core::ConfigVisitor& v) {
    v.field("distributional", distributional,
            "the return's distribution: none (DQN), c51, qr (QR-DQN), iqn",
            core::one_of({"none", "c51", "qr", "iqn"}));
    v.field("atoms", atoms, "c51: atoms of the support", core::at_least(2));
    v.field("v_min", v_min, "c51: the support's lowest return");
    v.field("v_max", v_max, "c51: the support's highest return");
    v.field("n_quantiles", n_quantiles, "qr: quantiles per action", core::at_least(1));
    v.field("quantile_samples", quantile_samples, "iqn: fractions sampled for the online quantiles",
            core::at_least(1));
    v.field("target_quantile_samples", target_quantile_samples,
            "iqn: fractions sampled for the target quantiles", core::at_least(1));
    v.field("policy_quantile_samples", policy_quantile_samples,
            "iqn: fractions (bin midpoints) averaged into the policy's Q-values",
            core::at_least(1));
    v.field("quantile_embedding", quantile_embedding, "iqn: cosines embedding a fraction",
            core::at_least(1));
    v.field("kappa", kappa, "qr, iqn: the quantile Huber loss's threshold", core::greater_than(0));
    v.field("risk", risk,
            "iqn: the policy's distortion of fractions: neutral, cvar (eta tau), wang, pow",
            core::one_of({"neutral", "cvar", "wang", "pow"}));
    v.field("risk_eta", risk_eta, "iqn: the distortion's parameter");
    v.field("noisy", noisy, "noisy nets (factorised Gaussian) explore, epsilon-greedy off");
    v.field("noisy_sigma0", noisy_sigma0, "noisy nets: initial sigma times sqrt(inputs)",
            core::greater_than(0));
  }
};

}  // namespace mnrl::agents
