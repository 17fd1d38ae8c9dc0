// A plugin that registers an env with MNRL_REGISTER_ENV, which runs as the library loads, before
// any version check: the loader must refuse it and register nothing. (The env is never made, so
// CartPole under another id serves.)
#include "envs/cartpole.h"
#include "envs/plugin.h"

MNRL_REGISTER_ENV("EarlyCartPole-v0", mnrl::envs::CartPole);

MNRL_PLUGIN(registry) { registry.add<mnrl::envs::CartPole>("EarlyCartPole-v0"); }
