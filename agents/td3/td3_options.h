#pragma once

#include <cstdint>

#include "agents/off_policy/off_policy_options.h"
#include "core/config.h"

namespace mnrl::agents {

// TD3 (Fujimoto et al. 2018): twin critics with clipped double-Q targets, delayed actor and
// target updates, target policy smoothing. The keys of the `td3:` section: the shared
// off-policy keys, the exploration noise and these; defaults are SB3's TD3.
struct Td3Options {
  OffPolicyOptions off_policy{1e-3};
  ActionNoiseOptions noise;
  std::int64_t policy_delay = 2;     // critic steps per actor (and target) step
  double target_policy_noise = 0.2;  // std of the noise on the target actions
  double target_noise_clip = 0.5;    // that noise is clipped to +-this

  void visit(core::ConfigVisitor& v) {
    off_policy.visit(v);
    noise.visit(v);
    v.field("policy_delay", policy_delay, "critic updates per actor and target update",
            core::at_least(1));
    v.field("target_policy_noise", target_policy_noise,
            "std of the smoothing noise on target actions", core::at_least(0));
    v.field("target_noise_clip", target_noise_clip, "bound of the target smoothing noise",
            core::at_least(0));
  }
};

// DDPG (Lillicrap et al. 2016) as SB3 builds it: TD3 with one critic, no delay and no target
// smoothing. The keys of the `ddpg:` section; defaults are SB3's DDPG.
struct DdpgOptions {
  OffPolicyOptions off_policy{1e-3};
  ActionNoiseOptions noise;

  void visit(core::ConfigVisitor& v) {
    off_policy.visit(v);
    noise.visit(v);
  }

  Td3Options as_td3() const {
    Td3Options td3;
    td3.off_policy = off_policy;
    td3.noise = noise;
    td3.policy_delay = 1;
    td3.target_policy_noise = 0.0;
    td3.target_noise_clip = 0.0;
    return td3;
  }
};

}  // namespace mnrl::agents
