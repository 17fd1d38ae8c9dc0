#include "envs/plugin.h"
#include "point_reach.h"

MNRL_PLUGIN(registry) { registry.add<PointReach>("PointReach-v0"); }
