// What every MinAtar game must do, whatever its rules: draw only 0s and 1s inside its own
// channels, and save and load its state exactly, refusing a state it cannot continue.
#include <gtest/gtest.h>

#include "envs/minatar/asterix.h"
#include "envs/minatar/breakout.h"
#include "envs/minatar/freeway.h"
#include "envs/minatar/seaquest.h"
#include "envs/minatar/space_invaders.h"
#include "game_test_support.h"

namespace mnrl::envs::minatar {
namespace {

template <class GameType>
class EveryGameTest : public ::testing::Test {};
using Games = ::testing::Types<Asterix, Breakout, Freeway, Seaquest, SpaceInvaders>;
TYPED_TEST_SUITE(EveryGameTest, Games);

int num_channels(const Game& game) { return static_cast<int>(game.channel_names().size()); }

TYPED_TEST(EveryGameTest, DrawsOnlyZerosAndOnesInsideItsChannels) {
  TypeParam game;
  core::Rng rng(5);
  core::Rng actions(6);
  game.reset(rng);
  test_support::expect_draws_only_zeros_and_ones(game, num_channels(game), 3000, rng, actions);
}

TYPED_TEST(EveryGameTest, AnEndedGameLoadsAsEnded) {
  TypeParam game;
  TypeParam loaded;
  core::Rng rng(2);
  core::Rng actions(3);
  test_support::expect_ended_game_loads_as_ended(game, loaded, num_channels(game), rng, actions);
}

// The games whose difficulty ramps: a state saved with ramping does not load into a game
// without it.
template <class GameType>
class RampingGameTest : public ::testing::Test {};
using RampingGames = ::testing::Types<Asterix, Seaquest, SpaceInvaders>;
TYPED_TEST_SUITE(RampingGameTest, RampingGames);

TYPED_TEST(RampingGameTest, RefusesAStateOfTheOtherRampingSetting) {
  TypeParam without_ramping(false);
  test_support::expect_refuses_state_of(TypeParam(true), without_ramping);
}

}  // namespace
}  // namespace mnrl::envs::minatar
