// Registers the five MinAtar games as "MinAtar/<Game>-v0" (six actions) and "-v1" (minimal).
#include <memory>

#include "envs/minatar/asterix.h"
#include "envs/minatar/breakout.h"
#include "envs/minatar/freeway.h"
#include "envs/minatar/minatar_env.h"
#include "envs/minatar/seaquest.h"
#include "envs/minatar/space_invaders.h"

namespace mnrl::envs::minatar {
namespace {

template <class GameType>
MinAtarEnv::GameFactory factory() {
  return [](bool difficulty_ramping) { return std::make_unique<GameType>(difficulty_ramping); };
}

const bool registered = [] {
  register_minatar_game("Asterix", factory<Asterix>());
  register_minatar_game("Breakout", factory<Breakout>());
  register_minatar_game("Freeway", factory<Freeway>());
  register_minatar_game("Seaquest", factory<Seaquest>());
  register_minatar_game("SpaceInvaders", factory<SpaceInvaders>());
  return true;
}();

}  // namespace
}  // namespace mnrl::envs::minatar
