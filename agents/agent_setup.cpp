#include "agents/agent_setup.h"

#include "nn/flat_parameters.h"

namespace mnrl::agents {

GradientHook AgentSetup::hook_for(nn::FlatParameters& parameters) const {
  if (!gradient_hook) return {};
  return [range = gradient_hook(parameters), count = parameters.numel()] { range(0, count); };
}

}  // namespace mnrl::agents
