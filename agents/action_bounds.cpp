#include "agents/action_bounds.h"

#include <variant>

namespace mnrl::agents {

ActionBounds action_bounds(const envs::EnvSpec& spec) {
  const auto* box = std::get_if<envs::Box>(&spec.action_space);
  return box ? ActionBounds{box->low, box->high} : ActionBounds{};
}

}  // namespace mnrl::agents
