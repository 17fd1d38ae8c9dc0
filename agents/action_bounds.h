#pragma once

#include <vector>

#include "envs/space.h"

namespace mnrl::agents {

// Bounds of a Box action space: Gaussian samples are clipped into them before the env sees
// them (the rollout keeps the unclipped sample and its log-prob, as SB3), and squashed samples
// in (-1, 1) are mapped linearly onto them. Empty for Discrete actions.
struct ActionBounds {
  std::vector<float> low, high;
};

// The bounds of `spec`'s Box actions (none for Discrete).
ActionBounds action_bounds(const envs::EnvSpec& spec);

}  // namespace mnrl::agents
