#pragma once

#include <vector>

#include "core/rng.h"
#include "envs/env.h"

namespace mnrl::envs {

// Uniformly random valid actions for one action space: an index in [0, n) for Discrete; for a
// Box, each value uniform in [low, high], or within 1 of the finite bound where the other is
// infinite, or in [-1, 1] where both are. The caller owns the Rng.
class ActionSampler {
 public:
  explicit ActionSampler(Space space);

  // One action drawn from `rng`. A Box action's values live in the sampler until the next call.
  ActionRef sample(core::Rng& rng);

 private:
  Space space_;
  std::vector<float> values_;  // flat_size() floats for a Box; empty for Discrete
};

}  // namespace mnrl::envs
