#pragma once

#include <cstdint>
#include <string>

#include "core/config.h"

namespace mnrl::agents {

// IMPALA (Espeholt et al. 2018): actor ranks send trajectories of unroll_length steps of their
// env.num_envs envs to the learner, which corrects them for its newer policy with V-trace and
// takes one gradient step per batch of batch_trajectories of them. The YAML keys of the
// `impala:` section are these field names; defaults are the paper's where it states them
// (bars at 1, gradient clip 40) and RLlib's otherwise (Adam 5e-4, entropy 0.01).
struct ImpalaOptions {
  std::int64_t unroll_length = 20;      // steps per env in one trajectory
  std::int64_t batch_trajectories = 1;  // trajectories per learner update
  double gamma = 0.99;                  // discount factor
  double rho_bar = 1.0;                 // V-trace: clips the TD errors' importance weights
  double c_bar = 1.0;                   // V-trace: clips the traces
  double pg_rho_bar = 1.0;              // V-trace: clips the policy gradient's weights
  double learning_rate = 5e-4;          // Adam step size at the start
  std::string lr_schedule = "constant";  // constant | linear (decays to 0 at the end)
  double ent_coef = 0.01;               // entropy bonus weight
  double vf_coef = 0.5;                 // value loss weight
  double max_grad_norm = 40.0;          // global gradient-norm clip
  double optimizer_eps = 1e-8;          // Adam epsilon
  std::int64_t broadcast_interval = 1;  // learner updates between parameter broadcasts
  std::int64_t queue_size = 2;          // trajectories an actor may have in flight

  void visit(core::ConfigVisitor& v) {
    v.field("unroll_length", unroll_length, "steps per env in one trajectory", core::at_least(1));
    v.field("batch_trajectories", batch_trajectories, "trajectories per learner update",
            core::at_least(1));
    v.field("gamma", gamma, "discount factor", core::between(0, 1));
    v.field("rho_bar", rho_bar, "V-trace: clip of the TD errors' importance weights",
            core::greater_than(0));
    v.field("c_bar", c_bar, "V-trace: clip of the traces' importance weights",
            core::greater_than(0));
    v.field("pg_rho_bar", pg_rho_bar, "V-trace: clip of the policy gradient's importance weights",
            core::greater_than(0));
    v.learning_rate(learning_rate, lr_schedule, "Adam step size", core::greater_than(0));
    v.field("ent_coef", ent_coef, "entropy bonus weight", core::at_least(0));
    v.field("vf_coef", vf_coef, "value loss weight", core::at_least(0));
    v.field("max_grad_norm", max_grad_norm, "gradient-norm clip", core::greater_than(0));
    v.field("optimizer_eps", optimizer_eps, "Adam epsilon", core::greater_than(0));
    v.field("broadcast_interval", broadcast_interval,
            "learner updates between sending the parameters to the actors", core::at_least(1));
    v.field("queue_size", queue_size,
            "trajectories an actor may have in flight before it waits for the learner",
            core::at_least(1));
  }
};

}  // namespace mnrl::agents
