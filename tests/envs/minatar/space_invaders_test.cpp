#include "envs/minatar/space_invaders.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/rng.h"
#include "tests/envs/minatar/game_test_support.h"

namespace mnrl::envs::minatar {
namespace {

using Rows = SpaceInvaders::Rows;
using State = SpaceInvaders::State;

constexpr int kNumChannels = 6;
enum Channel : int {
  kCannon,
  kAlien,
  kAlienLeft,
  kAlienRight,
  kFriendlyBullet,
  kEnemyBullet,
};

constexpr std::uint16_t column(int x) { return static_cast<std::uint16_t>(1u << x); }

using test_support::DrawnGrid;

DrawnGrid drawn(const Game& game) { return DrawnGrid(game, kNumChannels); }

// A state with the given aliens, whose next shot is far away.
State holding_fire(const Rows& aliens) {
  State state;
  state.aliens = aliens;
  state.alien_shot_timer = 10000;
  return state;
}

SpaceInvaders game_at(const State& state, bool difficulty_ramping = true) {
  SpaceInvaders game(difficulty_ramping);
  game.set_state(state);
  return game;
}

// A game whose formation, `aliens`, steps on its first frame and fires only much later.
SpaceInvaders stepping_at_once(const Rows& aliens) {
  State state = holding_fire(aliens);
  state.alien_move_timer = 0;
  return game_at(state);
}

// The frames, from 1 to `frames`, on which the formation stepped while `game` played `frames`
// frames of noop.
std::vector<int> frames_moved(SpaceInvaders& game, int frames) {
  core::Rng rng(1);
  std::vector<int> moved;
  for (int frame = 1; frame <= frames; ++frame) {
    const Rows before = game.state().aliens;
    game.step(Action::noop, rng);
    if (game.state().aliens != before) moved.push_back(frame);
  }
  return moved;
}

TEST(SpaceInvadersTest, HasMinAtarsChannelsAndActions) {
  const SpaceInvaders game;
  const std::vector<std::string> names = {"cannon",      "alien",           "alien_left",
                                          "alien_right", "friendly_bullet", "enemy_bullet"};
  EXPECT_EQ(game.channel_names(), names);
  const std::vector<Action> actions = {Action::noop, Action::left, Action::right, Action::fire};
  EXPECT_EQ(game.minimal_actions(), actions);
}

TEST(SpaceInvadersTest, StartsWithAWaveOf24AliensMovingLeft) {
  SpaceInvaders game;
  core::Rng rng(1);
  game.reset(rng);
  const DrawnGrid cells = drawn(game);
  EXPECT_TRUE(cells.at(kCannon, {9, 5}));
  EXPECT_EQ(cells.count(kAlien), 24);
  for (int y = 0; y < 4; ++y) {
    for (int x = 2; x < 8; ++x) EXPECT_TRUE(cells.at(kAlienLeft, {y, x}));
  }
  EXPECT_EQ(cells.count(kAlienLeft), 24);
  EXPECT_EQ(cells.count(kAlienRight), 0);
}

TEST(SpaceInvadersTest, ShootingAnAlienGivesOnePoint) {
  SpaceInvaders game;
  core::Rng rng(1);
  game.reset(rng);
  // The bullet leaves row 9 on the frame it is fired and meets the bottom alien, in row 3,
  // on the sixth frame.
  std::vector<double> rewards;
  rewards.push_back(game.step(Action::fire, rng));
  for (int frame = 1; frame < 6; ++frame) rewards.push_back(game.step(Action::noop, rng));
  EXPECT_EQ(rewards, (std::vector<double>{0, 0, 0, 0, 0, 1}));
  const DrawnGrid cells = drawn(game);
  EXPECT_EQ(cells.count(kAlien), 23);
  EXPECT_FALSE(cells.at(kAlien, {3, 5}));
  EXPECT_EQ(cells.count(kFriendlyBullet), 0);
}

TEST(SpaceInvadersTest, TheCannonFiresAtMostEveryFifthFrame) {
  Rows aliens{};
  aliens[0] = column(0);  // out of the bullets' way
  SpaceInvaders game = game_at(holding_fire(aliens));
  core::Rng rng(1);
  for (int frame = 0; frame < 9; ++frame) game.step(Action::fire, rng);
  // Shots on frames 0 and 5, each flying up one row per frame from row 9.
  const Rows& bullets = game.state().friendly_bullets;
  for (int y = 0; y < kGridSize; ++y) {
    EXPECT_EQ(bullets[y], y == 0 || y == 5 ? column(5) : 0) << "row " << y;
  }
}

TEST(SpaceInvadersTest, TheFormationStepsSidewaysAndTurnsDownAtTheWalls) {
  SpaceInvaders game = game_at(holding_fire(SpaceInvaders::kFreshWave));
  EXPECT_EQ(frames_moved(game, 49), (std::vector<int>{13, 25, 37, 49}));
  // Two steps left to the wall, one down there, then back to the right.
  const Rows& aliens = game.state().aliens;
  EXPECT_EQ(aliens[0], 0);
  for (int y = 1; y <= 4; ++y) EXPECT_EQ(aliens[y], 0x7E) << "row " << y;  // columns 1-6
  EXPECT_EQ(game.state().alien_dx, 1);
  const DrawnGrid cells = drawn(game);
  EXPECT_EQ(cells.count(kAlienRight), 24);
  EXPECT_EQ(cells.count(kAlienLeft), 0);
}

TEST(SpaceInvadersTest, FewAliensStepOnceEveryFramePerAlien) {
  Rows aliens{};
  aliens[2] = column(4) | column(5) | column(6);
  SpaceInvaders game = stepping_at_once(aliens);
  EXPECT_EQ(frames_moved(game, 8), (std::vector<int>{1, 4, 7}));
}

// Clears a wave of one alien, returning the reward and the number of frames between the
// first two steps of the new wave.
struct ClearedWave {
  double reward;
  int step_interval;
};
ClearedWave clear_last_alien(SpaceInvaders& game, int move_interval) {
  Rows aliens{};
  aliens[0] = column(4);
  State state = holding_fire(aliens);
  state.alien_move_interval = move_interval;
  state.alien_move_timer = 3;
  state.friendly_bullets[1] = column(4);  // hits the alien this frame
  game.set_state(state);
  core::Rng rng(1);
  ClearedWave result{game.step(Action::noop, rng), 0};
  EXPECT_EQ(game.state().aliens, SpaceInvaders::kFreshWave);
  std::vector<int> frames_moved;
  for (int frame = 1; frames_moved.size() < 2; ++frame) {
    const Rows before = game.state().aliens;
    game.step(Action::noop, rng);
    if (game.state().aliens != before) frames_moved.push_back(frame);
  }
  result.step_interval = frames_moved[1] - frames_moved[0];
  return result;
}

TEST(SpaceInvadersTest, AClearedWaveIsReplacedByAFasterOneWithRamping) {
  SpaceInvaders game;
  const ClearedWave wave = clear_last_alien(game, SpaceInvaders::kInitialAlienMoveInterval);
  EXPECT_EQ(wave.reward, 1.0);
  EXPECT_EQ(wave.step_interval, SpaceInvaders::kInitialAlienMoveInterval - 1);
  // Down to a step every 6 frames, no faster.
  EXPECT_EQ(clear_last_alien(game, 7).step_interval, 6);
  EXPECT_EQ(clear_last_alien(game, 6).step_interval, 6);
}

TEST(SpaceInvadersTest, WithoutRampingANewWaveKeepsItsSpeed) {
  SpaceInvaders game(/*difficulty_ramping=*/false);
  const ClearedWave wave = clear_last_alien(game, SpaceInvaders::kInitialAlienMoveInterval);
  EXPECT_EQ(wave.reward, 1.0);
  EXPECT_EQ(wave.step_interval, SpaceInvaders::kInitialAlienMoveInterval);
}

TEST(SpaceInvadersTest, TheAlienNearestTheCannonFiresFromTheBottomOfItsColumn) {
  Rows aliens{};
  aliens[0] = column(3) | column(7);
  aliens[1] = column(3);
  aliens[2] = column(7);
  State state;
  state.aliens = aliens;
  state.alien_shot_timer = 0;
  SpaceInvaders game = game_at(state);
  core::Rng rng(1);
  game.step(Action::noop, rng);
  // Columns 3 and 7 are both two away from the cannon; the left one fires.
  Rows expected{};
  expected[1] = column(3);
  EXPECT_EQ(game.state().enemy_bullets, expected);
  EXPECT_EQ(game.state().alien_shot_timer, SpaceInvaders::kAlienShotInterval - 1);
}

TEST(SpaceInvadersTest, AnEnemyBulletReachingTheCannonEndsTheGame) {
  State state = holding_fire(SpaceInvaders::kFreshWave);
  state.enemy_bullets[8] = column(4) | column(5);
  SpaceInvaders game = game_at(state);
  core::Rng rng(1);
  game.step(Action::left, rng);  // dodges the one in column 5 into the one in column 4
  EXPECT_TRUE(game.terminal());

  state.enemy_bullets[8] = column(5);
  game.set_state(state);
  game.step(Action::left, rng);
  EXPECT_FALSE(game.terminal());
}

TEST(SpaceInvadersTest, AnAlienReachingTheCannonEndsTheGame) {
  Rows aliens{};
  aliens[9] = column(6);
  SpaceInvaders game = stepping_at_once(aliens);
  core::Rng rng(1);
  game.step(Action::noop, rng);
  EXPECT_TRUE(game.terminal());
}

TEST(SpaceInvadersTest, AnAlienInTheBottomRowTurningAtAWallEndsTheGame) {
  Rows aliens{};
  aliens[9] = column(0);
  SpaceInvaders game = stepping_at_once(aliens);  // the cannon is far away, in column 5
  core::Rng rng(1);
  game.step(Action::noop, rng);
  EXPECT_TRUE(game.terminal());
}

// A game well under way: a thinned, ramped wave stepping right and bullets in flight.
State game_under_way() {
  State state;
  state.cannon_x = 2;
  state.aliens = {0, 0xF8, 0x1F8, 0x88, 0x1F0, 0, 0, 0, 0, 0};
  state.friendly_bullets[6] = column(2);
  state.enemy_bullets[5] = column(4);
  state.alien_dx = +1;
  state.alien_move_interval = 9;
  state.alien_move_timer = 4;
  state.alien_shot_timer = 7;
  state.shot_timer = 3;
  return state;
}

TEST(SpaceInvadersTest, LoadedStateReplaysTheNext500Frames) {
  // 60 games from a state well under way, each saved after 0-19 frames of random play.
  test_support::expect_loaded_states_replay_from(game_at(game_under_way()), kNumChannels);
}

}  // namespace
}  // namespace mnrl::envs::minatar
