#pragma once

#include <cstdint>
#include <string>

#include "core/config.h"

namespace mnrl::agents {

// The keys SAC, TD3 and DDPG share, with SB3's defaults for its off-policy algorithms (the
// learning rate differs: each algorithm sets its own). Each section (`sac:`, `td3:`, `ddpg:`)
// lists these first.
struct OffPolicyOptions {
  explicit OffPolicyOptions(double learning_rate_) : learning_rate(learning_rate_) {}

  double learning_rate;                   // Adam step size of every network (and of log alpha)
  std::string lr_schedule = "constant";   // constant | linear (decays to 0 at the end)
  std::int64_t buffer_size = 1'000'000;   // replay capacity in transitions
  std::int64_t learning_starts = 100;     // env steps of uniform random actions before learning
  std::int64_t batch_size = 256;          // transitions per gradient step
  double tau = 0.005;                     // Polyak rate of the target networks
  double gamma = 0.99;                    // discount
  std::int64_t train_freq = 1;            // vector-env steps between updates
  std::int64_t gradient_steps = 1;        // gradient steps per update
  int n_step = 1;                         // n-step returns

  void visit(core::ConfigVisitor& v) {
    v.learning_rate(learning_rate, lr_schedule, "Adam step size of every network",
                    core::greater_than(0));
    v.field("buffer_size", buffer_size, "replay capacity (transitions)", core::at_least(1));
    v.field("learning_starts", learning_starts,
            "env steps of uniform random actions before learning", core::at_least(0));
    v.field("batch_size", batch_size, "transitions per gradient step", core::at_least(1));
    v.field("tau", tau, "Polyak rate of the target networks", core::between(0, 1));
    v.field("gamma", gamma, "discount factor", core::between(0, 1));
    v.field("train_freq", train_freq, "vector-env steps between updates", core::at_least(1));
    v.field("gradient_steps", gradient_steps, "gradient steps per update", core::at_least(1));
    v.field("n_step", n_step, "n-step returns", core::at_least(1));
  }
};

// Exploration noise added to a deterministic actor's actions (TD3, DDPG), in the actor's
// [-1, 1] units, then clipped there (SB3's action_noise).
struct ActionNoiseOptions {
  // none | normal (independent N(0, std^2) per step) | ornstein_uhlenbeck (temporally
  // correlated, reset at each episode's end, as SB3's OrnsteinUhlenbeckActionNoise).
  std::string action_noise = "none";  // SB3's default: no noise
  double action_noise_std = 0.1;      // sigma of either process
  double ou_theta = 0.15;             // Ornstein-Uhlenbeck mean reversion rate
  double ou_dt = 0.01;                // Ornstein-Uhlenbeck time step

  void visit(core::ConfigVisitor& v) {
    v.field("action_noise", action_noise, "exploration noise on the actor's actions",
            core::one_of({"none", "normal", "ornstein_uhlenbeck"}));
    v.field("action_noise_std", action_noise_std, "standard deviation of the action noise",
            core::at_least(0));
    v.field("ou_theta", ou_theta, "Ornstein-Uhlenbeck mean reversion rate", core::at_least(0));
    v.field("ou_dt", ou_dt, "Ornstein-Uhlenbeck time step", core::greater_than(0));
  }
};

}  // namespace mnrl::agents
