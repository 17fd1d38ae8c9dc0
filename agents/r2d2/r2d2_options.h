#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "agents/epsilon_greedy_options.h"
#include "core/config.h"

namespace mnrl::agents {

// R2D2 (Kapturowski et al. 2019, "Recurrent experience replay in distributed reinforcement
// learning"): DQN with a recurrent Q-network learning from replayed sequences, each with the
// memory its actor had before its first step, refreshed by a burn-in. The keys of the `r2d2:`
// section are these field names; defaults are the paper's (its Table 2) unless said.
struct R2d2Options {
  double learning_rate = 1e-4;           // Adam step size at the start
  std::string lr_schedule = "constant";  // constant | linear (decays to 0 at the end)
  double adam_eps = 1e-3;
  std::int64_t buffer_size = 10'000;     // replay capacity in sequences
  std::int64_t learning_starts = 5'000;  // env steps before the first update
  std::int64_t batch_size = 64;          // sequences per gradient step
  std::int64_t burn_in = 40;             // steps replayed before the trained ones, no gradient
  std::int64_t seq_len = 80;             // trained steps per sequence
  // Steps between the starts of an env's successive sequences; 0: seq_len / 2 (the paper's
  // overlap of half a sequence).
  std::int64_t period = 0;
  double gamma = 0.997;
  int n_step = 5;
  bool double_q = true;
  std::string loss = "huber";  // huber | mse
  double max_grad_norm = 40.0;
  bool value_rescaling = true;  // learn h(Q) (r2d2_loss.h: rescaled_value)
  double priority_eta = 0.9;  // a sequence's priority: eta max |delta| + (1 - eta) mean |delta|
  double per_alpha = 0.9;
  double per_beta0 = 0.6;
  double per_eps = 1e-6;
  std::int64_t train_freq = 4;                 // vector-env steps between updates (as DQN's)
  std::int64_t gradient_steps = 1;             // gradient steps per update
  std::int64_t target_update_interval = 2500;  // gradient steps between target copies
  EpsilonGreedyOptions exploration;            // DQN's schedule; its keys sit in the section itself

  std::int64_t sequence_period() const {
    return period > 0 ? period : std::max<std::int64_t>(1, seq_len / 2);
  }

  // The learner's keys: all but train_freq, gradient_steps and the exploration schedule
  // (apex_r2d2 sets those itself).
  void visit_learning(core::ConfigVisitor& v) {
    v.learning_rate(learning_rate, lr_schedule, "Adam step size", core::greater_than(0));
    v.field("adam_eps", adam_eps, "Adam's epsilon", core::greater_than(0));
    v.field("buffer_size", buffer_size, "replay capacity (sequences)", core::at_least(1));
    v.field("learning_starts", learning_starts, "env steps before learning", core::at_least(0));
    v.field("batch_size", batch_size, "sequences per gradient step", core::at_least(1));
    v.field("burn_in", burn_in, "steps replayed before the trained ones to refresh the memory",
            core::at_least(0));
    v.field("seq_len", seq_len, "trained steps per sequence", core::at_least(1));
    v.field("period", period, "steps between the starts of an env's sequences; 0 = seq_len / 2",
            core::at_least(0));
    v.field("gamma", gamma, "discount factor", core::between(0, 1));
    v.field("n_step", n_step, "n-step returns (within a sequence)", core::at_least(1));
    v.field("double_q", double_q, "Double DQN targets");
    v.field("loss", loss, "TD loss", core::one_of({"huber", "mse"}));
    v.field("max_grad_norm", max_grad_norm, "gradient-norm clip", core::greater_than(0));
    v.field("value_rescaling", value_rescaling,
            "learn h(Q), h(x) = sign(x) (sqrt(|x| + 1) - 1) + 0.001 x, as the paper does");
    v.field("priority_eta", priority_eta,
            "sequence priority: eta max |TD error| + (1 - eta) mean |TD error|",
            core::between(0, 1));
    v.field("per_alpha", per_alpha, "priority exponent", core::between(0, 1));
    v.field("per_beta0", per_beta0, "initial importance-sampling exponent", core::between(0, 1));
    v.field("per_eps", per_eps, "added to priorities", core::greater_than(0));
    v.field("target_update_interval", target_update_interval,
            "gradient steps between target network copies", core::at_least(1));
  }

  void visit(core::ConfigVisitor& v) {
    visit_learning(v);
    v.field("train_freq", train_freq, "vector-env steps between updates", core::at_least(1));
    v.field("gradient_steps", gradient_steps, "gradient steps per update", core::at_least(1));
    exploration.visit(v);
  }
};

}  // namespace mnrl::agents
