#pragma once

#include "core/config.h"

namespace mnrl::agents {

// Epsilon-greedy exploration as SB3's DQN schedules it: epsilon goes linearly from initial_eps
// to final_eps over the first `fraction` of training, then stays at final_eps. Its keys sit in
// the algorithm's section (exploration_fraction, exploration_initial_eps,
// exploration_final_eps), as SB3 names them.
struct EpsilonGreedyOptions {
  double fraction = 0.1;
  double initial_eps = 1.0;
  double final_eps = 0.05;

  // Epsilon at `progress` (training done, 0 -> 1).
  double epsilon(double progress) const {
    if (fraction <= 0 || progress >= fraction) return final_eps;
    return initial_eps + (final_eps - initial_eps) * progress / fraction;
  }

  void visit(core::ConfigVisitor& v) {
    v.field("exploration_fraction", fraction, "fraction of training over which epsilon decays",
            core::between(0, 1));
    v.field("exploration_initial_eps", initial_eps, "epsilon at the start", core::between(0, 1));
    v.field("exploration_final_eps", final_eps, "epsilon after the decay", core::between(0, 1));
  }
};

}  // namespace mnrl::agents
