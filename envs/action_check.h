#pragma once

#include "envs/env.h"

namespace mnrl::envs {

// Throws std::invalid_argument, naming the env and the problem, unless `action` fits
// spec.action_space: an index in [0, n) for Discrete; for a Box, exactly flat_size() values
// (not null) and none of them NaN. Values outside a Box's bounds are allowed: envs clip them
// as Gymnasium does.
void check_action(const EnvSpec& spec, const ActionRef& action);

}  // namespace mnrl::envs
