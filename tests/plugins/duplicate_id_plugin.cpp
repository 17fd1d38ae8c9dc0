// A plugin that registers an id mnrl already has (CartPole-v1) next to a new one: the loader
// must refuse it as a whole.
#include <memory>

#include "envs/cartpole.h"
#include "envs/plugin.h"

MNRL_PLUGIN(registry) {
  registry.add<mnrl::envs::CartPole>("CartPole-v1");
}
