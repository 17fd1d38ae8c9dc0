#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "agents/off_policy/off_policy_options.h"
#include "core/config.h"

namespace mnrl::agents {

// Soft Actor-Critic (Haarnoja et al. 2018, with learned temperature): twin critics with Polyak
// targets and a squashed Gaussian actor. The keys of the `sac:` section: the shared off-policy
// keys (OffPolicyOptions) and these; defaults are SB3's SAC.
struct SacOptions {
  OffPolicyOptions off_policy{3e-4};
  // auto: alpha learned from 1, so that the policy's entropy tracks target_entropy;
  // auto_<x>: learned from x; a number: alpha fixed at it.
  std::string ent_coef = "auto";
  std::string target_entropy = "auto";  // auto: -(action dimensions); or a number
  std::int64_t target_update_interval = 1;  // gradient steps between target updates
  // gSDE exploration (Raffin et al. 2022): noise from the actor's features and exploration
  // matrices drawn anew at each update's start (and every sde_sample_freq steps when > 0);
  // network.log_std_init, full_std and use_expln shape it.
  bool use_sde = false;
  std::int64_t sde_sample_freq = -1;
  bool use_sde_at_warmup = false;  // gSDE instead of uniform actions before learning_starts

  void visit(core::ConfigVisitor& v) {
    off_policy.visit(v);
    v.field("ent_coef", ent_coef, "entropy coefficient alpha: auto, auto_<initial> or a number");
    v.field("target_entropy", target_entropy,
            "entropy the learned alpha aims at: auto (-action dimensions) or a number");
    v.field("target_update_interval", target_update_interval,
            "gradient steps between target network updates", core::at_least(1));
    v.field("use_sde", use_sde, "gSDE exploration (state-dependent noise)");
    v.field("sde_sample_freq", sde_sample_freq,
            "gSDE: env steps between exploration-matrix draws besides each update's; -1 = none",
            core::at_least(-1));
    v.field("use_sde_at_warmup", use_sde_at_warmup,
            "gSDE: act with the policy before learning_starts instead of uniformly");
  }
};

// ent_coef read: learned (from `initial`) or fixed at `initial`.
struct EntropyCoefficient {
  bool learned = true;
  double initial = 1.0;
};

// std::nullopt for text that is not "auto", "auto_<positive number>" or a positive number.
std::optional<EntropyCoefficient> parse_entropy_coefficient(const std::string& text);
// std::nullopt for text that is neither "auto" nor a number; "auto" gives -action_size.
std::optional<double> parse_target_entropy(const std::string& text, std::int64_t action_size);

}  // namespace mnrl::agents
