#pragma once

#include "agents/a2c/a2c_options.h"

namespace mnrl::agents {

// A3C (Mnih et al. 2016, as ChainerRL): `workers` actor-learner threads, each with its own
// envs (env.num_envs of them), RNG and local copy of the model, rolling out n_steps (t_max)
// steps and applying its gradients to the shared model through one RMSprop whose statistics
// are shared too. The per-worker update is A2C's; so are the other keys and their defaults.
struct A3cOptions : A2cOptions {
  int workers = 2;

  void visit(core::ConfigVisitor& v) {
    v.field("workers", workers, "actor-learner threads", core::between(1, 1024));
    A2cOptions::visit(v);
  }
};

}  // namespace mnrl::agents
