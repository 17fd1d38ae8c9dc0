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

  void visit(core::ConfigVisitor& v) {
    off_policy.visit(v);
    v.field("ent_coef", ent_coef, "entropy coefficient alpha: auto, auto_<initial> or a number");
    v.field("target_entropy", target_entropy,
            "entropy the learned alpha aims at: auto (-action dimensions) or a number");
    v.field("target_update_interval", target_update_interval,
            "gradient steps between target network updates", core::at_least(1));
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
