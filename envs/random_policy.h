#pragma once

#include <cstdint>

#include "envs/env.h"

namespace mnrl::envs {

// What a uniformly random policy scores: the baseline a learning curve is read against.
struct RandomPolicyReturns {
  int episodes = 0;
  double mean_return = 0.0;
  double std_return = 0.0;  // population std over the episodes
  double min_return = 0.0;
  double max_return = 0.0;
  double mean_length = 0.0;
};

// Plays `episodes` episodes of `env` (the episode with index k reset with seed k) with actions
// drawn uniformly (envs::ActionSampler) from an Rng seeded with `action_seed`. The env must end
// its episodes (a time limit does).
RandomPolicyReturns random_policy_returns(Env& env, int episodes, std::uint64_t action_seed);

}  // namespace mnrl::envs
