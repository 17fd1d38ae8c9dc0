#pragma once

#include <cstdint>
#include <string>

#include "core/config.h"

namespace mnrl::agents {

// Synchronous advantage actor-critic (Mnih et al. 2016, as SB3's A2C): one gradient step per
// rollout of n_steps x num_envs. The YAML keys of the `a2c:` section are these field names;
// defaults are SB3's.
struct A2cOptions {
  std::int64_t n_steps = 5;             // steps per env in one rollout
  double gamma = 0.99;                  // discount factor
  double gae_lambda = 1.0;              // 1 = plain n-step returns
  double learning_rate = 7e-4;          // optimizer step size at the start
  std::string lr_schedule = "constant";  // constant | linear (decays to 0 at the end)
  double ent_coef = 0.0;                // entropy bonus weight
  double vf_coef = 0.5;                 // value loss weight
  double max_grad_norm = 0.5;           // global gradient-norm clip
  bool normalize_advantage = false;     // over the rollout
  std::string optimizer = "rmsprop";    // rmsprop | adam
  double rms_prop_alpha = 0.99;         // RMSprop smoothing
  double optimizer_eps = 1e-5;          // RMSprop / Adam epsilon
  bool use_sde = false;                 // Box actions: gSDE (nn/state_dependent_noise.h)
  std::int64_t sde_sample_freq = -1;    // steps between gSDE draws; -1 = once per rollout

  void visit(core::ConfigVisitor& v) {
    v.field("n_steps", n_steps, "steps per env in one rollout", core::at_least(1));
    v.field("gamma", gamma, "discount factor", core::between(0, 1));
    v.field("gae_lambda", gae_lambda, "GAE lambda; 1 = n-step returns", core::between(0, 1));
    v.learning_rate(learning_rate, lr_schedule, "optimizer step size", core::greater_than(0));
    v.field("ent_coef", ent_coef, "entropy bonus weight", core::at_least(0));
    v.field("vf_coef", vf_coef, "value loss weight", core::at_least(0));
    v.field("max_grad_norm", max_grad_norm, "gradient-norm clip", core::greater_than(0));
    v.field("normalize_advantage", normalize_advantage, "normalize advantages per rollout");
    v.field("optimizer", optimizer, "optimizer", core::one_of({"rmsprop", "adam"}));
    v.field("rms_prop_alpha", rms_prop_alpha, "RMSprop smoothing constant", core::between(0, 1));
    v.field("optimizer_eps", optimizer_eps, "optimizer epsilon", core::greater_than(0));
    v.field("use_sde", use_sde, "Box actions: generalized state-dependent exploration");
    v.field("sde_sample_freq", sde_sample_freq,
            "steps between gSDE noise draws; -1 = once per rollout", core::at_least(-1));
  }
};

}  // namespace mnrl::agents
