#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/config.h"

namespace mnrl::agents {

// PPO with a clipped surrogate (Schulman et al. 2017), as SB3 and CleanRL implement it. The
// YAML keys of the `ppo:` section are these field names; defaults are SB3's.
struct PpoOptions {
  std::int64_t n_steps = 2048;        // steps per env in one rollout
  std::int64_t batch_size = 64;       // minibatch size
  std::int64_t n_epochs = 10;         // passes over each rollout
  double gamma = 0.99;                // discount factor
  double gae_lambda = 0.95;           // GAE(lambda)
  double learning_rate = 3e-4;        // Adam step size at the start
  std::string lr_schedule = "constant";     // constant | linear (decays to 0 at the end)
  double clip_range = 0.2;            // policy ratio clip at the start
  std::string clip_range_schedule = "constant";  // constant | linear
  std::optional<double> clip_range_vf;  // value clip around old values; null = off
  double ent_coef = 0.0;              // entropy bonus weight
  double vf_coef = 0.5;               // value loss weight
  double max_grad_norm = 0.5;         // global gradient-norm clip
  bool normalize_advantage = true;    // per minibatch
  double adam_eps = 1e-5;             // Adam epsilon (SB3 uses 1e-5 for on-policy agents)
  bool use_sde = false;               // Box actions: gSDE exploration (nn/state_dependent_noise.h)
  std::int64_t sde_sample_freq = -1;  // steps between gSDE draws; -1 = once per rollout
  std::int64_t seq_len = 0;  // network.recurrent: steps of a replayed sequence; 0 = n_steps

  void visit(core::ConfigVisitor& v) {
    const core::Limits schedules = core::one_of({"constant", "linear"});
    v.field("n_steps", n_steps, "steps per env in one rollout", core::at_least(1));
    v.field("batch_size", batch_size, "minibatch size", core::at_least(1));
    v.field("n_epochs", n_epochs, "passes over each rollout", core::at_least(1));
    v.field("gamma", gamma, "discount factor", core::between(0, 1));
    v.field("gae_lambda", gae_lambda, "GAE lambda", core::between(0, 1));
    v.learning_rate(learning_rate, lr_schedule, "Adam step size", core::greater_than(0));
    v.field("clip_range", clip_range, "policy ratio clip", core::greater_than(0));
    v.field("clip_range_schedule", clip_range_schedule, "clip-range schedule", schedules);
    v.field("clip_range_vf", clip_range_vf, "value clip; null disables", core::greater_than(0));
    v.field("ent_coef", ent_coef, "entropy bonus weight", core::at_least(0));
    v.field("vf_coef", vf_coef, "value loss weight", core::at_least(0));
    v.field("max_grad_norm", max_grad_norm, "gradient-norm clip", core::greater_than(0));
    v.field("normalize_advantage", normalize_advantage, "normalize advantages per minibatch");
    v.field("adam_eps", adam_eps, "Adam epsilon", core::greater_than(0));
    v.field("use_sde", use_sde, "Box actions: generalized state-dependent exploration");
    v.field("sde_sample_freq", sde_sample_freq,
            "steps between gSDE noise draws; -1 = once per rollout", core::at_least(-1));
    v.field("seq_len", seq_len,
            "network.recurrent: steps of the sequences minibatches replay (truncated "
            "backpropagation through time); 0 = n_steps",
            core::at_least(0));
  }
};

}  // namespace mnrl::agents
