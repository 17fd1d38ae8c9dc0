#include <cstdio>

#include "apps/commands.h"
#include "envs/registry.h"

namespace mnrl::apps {

int envs_command() {
  const auto& registry = envs::Registry::global();
  for (const auto& id : registry.ids()) {
    const auto env = registry.make(id);
    const auto& spec = env->spec();
    std::printf("%s\n  observation: %s\n  action:      %s\n", id.c_str(),
                envs::describe(spec.observation_space).c_str(),
                envs::describe(spec.action_space).c_str());
    if (spec.max_episode_steps > 0) std::printf("  time limit:  %d steps\n", spec.max_episode_steps);
    if (spec.reward_threshold) std::printf("  solved at:   return %g\n", *spec.reward_threshold);
  }
  return kExitOk;
}

}  // namespace mnrl::apps
