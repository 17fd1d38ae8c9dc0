#pragma once

#include <cstdint>
#include <string>

#include "agents/dqn/return_distribution_options.h"
#include "agents/epsilon_greedy_options.h"
#include "core/config.h"

namespace mnrl::agents {

// DQN (Mnih et al. 2015) and the extensions PFRL/ChainerRL ship, each switched on in YAML:
// Double DQN targets, a dueling head (network side), n-step returns and prioritized replay,
// and beyond them the return's distribution (C51, QR-DQN, IQN) and noisy nets.
// The keys of the `dqn:` section are these field names; defaults are SB3's DQN where SB3 has
// the key, and the papers' otherwise.
struct DqnOptions {
  double learning_rate = 1e-4;                  // Adam step size at the start
  std::string lr_schedule = "constant";         // constant | linear (decays to 0 at the end)
  std::int64_t buffer_size = 1'000'000;         // replay capacity in transitions
  std::int64_t learning_starts = 100;           // env steps before the first update
  std::int64_t batch_size = 32;                 // transitions per gradient step
  double tau = 1.0;                             // target update: 1 = hard copy, < 1 = Polyak
  double gamma = 0.99;                          // discount
  std::int64_t train_freq = 4;                  // vector-env steps between updates
  std::int64_t gradient_steps = 1;              // gradient steps per update
  std::int64_t target_update_interval = 10000;  // env steps between target updates
  EpsilonGreedyOptions exploration;             // its keys sit in the section itself
  double max_grad_norm = 10.0;  // global gradient-norm clip
  // Adam's epsilon; 0: LibTorch's 1e-8 for DQN, 0.01 / batch_size for a return distribution
  // (the C51 and QR-DQN papers', SB3-contrib's QR-DQN, Dopamine's).
  double adam_eps = 0.0;
  std::string loss = "huber";  // huber (SB3's smooth L1) | mse; DQN's (distributional: none)
  bool double_q = false;       // Double DQN targets (van Hasselt et al. 2016)
  int n_step = 1;              // n-step returns
  bool prioritized = false;    // proportional prioritized replay
  double per_alpha = 0.6;      // priority exponent
  double per_beta0 = 0.4;      // importance-sampling exponent, annealed to 1
  double per_eps = 1e-6;       // added to |TD error|
  ReturnDistributionOptions distribution;  // its keys sit in the section itself

  // adam_eps as Adam takes it.
  double adam_epsilon() const {
    if (adam_eps > 0) return adam_eps;
    return distribution.distributional == "none" ? 1e-8 : 0.01 / static_cast<double>(batch_size);
  }

  void visit(core::ConfigVisitor& v) {
    v.learning_rate(learning_rate, lr_schedule, "Adam step size", core::greater_than(0));
    v.field("buffer_size", buffer_size, "replay capacity (transitions)", core::at_least(1));
    v.field("learning_starts", learning_starts, "env steps before learning", core::at_least(0));
    v.field("batch_size", batch_size, "transitions per gradient step", core::at_least(1));
    v.field("tau", tau, "target update rate; 1 = hard copy", core::between(0, 1));
    v.field("gamma", gamma, "discount factor", core::between(0, 1));
    v.field("train_freq", train_freq, "vector-env steps between updates", core::at_least(1));
    v.field("gradient_steps", gradient_steps, "gradient steps per update", core::at_least(1));
    v.field("target_update_interval", target_update_interval,
            "env steps between target network updates", core::at_least(1));
    exploration.visit(v);
    v.field("max_grad_norm", max_grad_norm, "gradient-norm clip", core::greater_than(0));
    v.field("adam_eps", adam_eps,
            "Adam's epsilon; 0 = 1e-8, or 0.01 / batch_size with a return distribution",
            core::at_least(0));
    v.field("loss", loss, "TD loss", core::one_of({"huber", "mse"}));
    v.field("double_q", double_q, "Double DQN targets");
    v.field("n_step", n_step, "n-step returns", core::at_least(1));
    v.field("prioritized", prioritized, "prioritized experience replay");
    v.field("per_alpha", per_alpha, "priority exponent", core::between(0, 1));
    v.field("per_beta0", per_beta0, "initial importance-sampling exponent", core::between(0, 1));
    v.field("per_eps", per_eps, "added to |TD error| for priorities", core::greater_than(0));
    distribution.visit(v);
  }
};

}  // namespace mnrl::agents
