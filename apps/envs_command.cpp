#include <cstdio>
#include <exception>
#include <memory>
#include <string>

#include "apps/cli.h"
#include "apps/commands.h"
#include "apps/env_arguments.h"
#include "envs/registry.h"
#include "experiments/runs/physics_engines.h"

namespace mnrl::apps {

int envs_command() {
  const auto& registry = envs::Registry::global();
  for (const auto& id : registry.ids()) {
    std::printf("%s\n", id.c_str());
    if (const std::string& plugin = registry.origin(id); !plugin.empty()) {
      std::printf("  plugin:      %s\n", plugin.c_str());
    }
    std::unique_ptr<envs::Env> env;
    try {
      env = registry.make(id);
    } catch (const std::exception& e) {  // e.g. an env with kwargs that have no default
      std::printf("  (cannot be made with no kwargs: %s)\n", e.what());
      continue;
    }
    const auto& spec = env->spec();
    std::printf("  observation: %s\n  action:      %s\n",
                envs::describe(spec.observation_space).c_str(),
                envs::describe(spec.action_space).c_str());
    if (spec.max_episode_steps > 0) std::printf("  time limit:  %d steps\n", spec.max_episode_steps);
    if (spec.reward_threshold) std::printf("  solved at:   return %g\n", *spec.reward_threshold);
  }
  for (const experiments::PhysicsEngine& engine : experiments::physics_engines()) {
    if (!engine.version.empty()) continue;
    std::printf("(not built: %s, the %s envs: %s was not found when mnrl was configured; "
                "scripts/setup.sh installs it, then rebuild)\n",
                engine.envs.c_str(), engine.name.c_str(), engine.package.c_str());
  }
  return kExitOk;
}

Command add_envs_command(CLI::App& mnrl) {
  auto plugins = std::make_shared<std::vector<std::string>>();
  CLI::App* envs = mnrl.add_subcommand("envs", "List the registered environments and their spaces");
  add_plugin_option(*envs, *plugins);
  return {envs, [plugins] {
            if (!load_plugins(*plugins, "envs")) return kExitUsage;
            return envs_command();
          }};
}

}  // namespace mnrl::apps
