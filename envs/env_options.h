#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/config.h"
#include "envs/vector_env.h"

namespace mnrl::envs {

// The `env:` section of an experiment config.
struct EnvOptions {
  std::string id = "CartPole-v1";  // registered env id
  int num_envs = 1;                // envs stepped together in one vector env
  int max_episode_steps = 0;       // time limit; 0 = the limit the env registers

  void visit(core::ConfigVisitor& v) {
    v.field("id", id, "registered environment id (see `mnrl envs`)");
    v.field("num_envs", num_envs, "environments stepped together", core::at_least(1));
    v.field("max_episode_steps", max_episode_steps,
            "time limit in steps; 0 keeps the env's registered limit", core::at_least(0));
  }
};

// Builds options.num_envs envs from the global registry into one VectorEnv seeded with `seed`.
std::unique_ptr<VectorEnv> make_vector_env(const EnvOptions& options, std::uint64_t seed);

}  // namespace mnrl::envs
