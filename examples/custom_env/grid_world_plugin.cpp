// The plugin: a shared library that adds GridWorld-v0 to mnrl at run time.
//   mnrl train grid_world_ppo.yaml        (env.plugin names this library)
#include "envs/plugin.h"
#include "grid_world.h"

MNRL_PLUGIN(registry) { registry.add<GridWorld>("GridWorld-v0"); }
