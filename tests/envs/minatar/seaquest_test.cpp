#include "envs/minatar/seaquest.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/rng.h"
#include "tests/envs/minatar/game_test_support.h"

namespace mnrl::envs::minatar {
namespace {

using State = Seaquest::State;

constexpr int kNumChannels = 10;
enum Channel : int {
  kSubFront,
  kSubBack,
  kFriendlyBullet,
  kTrail,
  kEnemyBullet,
  kEnemyFish,
  kEnemySub,
  kOxygenGauge,
  kDiverGauge,
  kDiver,
};

using test_support::DrawnGrid;

DrawnGrid drawn(const Game& game) { return DrawnGrid(game, kNumChannels); }

// A state with the sub at (x, y), underwater, and no spawns for a long time.
State quiet_state(int x, int y) {
  State state;
  state.sub_x = x;
  state.sub_y = y;
  state.surfaced = y == 0;
  state.enemy_spawn_timer = 10000;
  state.diver_spawn_timer = 10000;
  return state;
}

Seaquest game_at(const State& state, bool difficulty_ramping = true) {
  Seaquest game(difficulty_ramping);
  game.set_state(state);
  return game;
}

TEST(SeaquestTest, HasMinAtarsChannelsAndAllSixActions) {
  const Seaquest game;
  const std::vector<std::string> names = {
      "sub_front",  "sub_back",  "friendly_bullet", "trail",       "enemy_bullet",
      "enemy_fish", "enemy_sub", "oxygen_guage",    "diver_guage", "diver"};
  EXPECT_EQ(game.channel_names(), names);
  const std::vector<Action> actions = {Action::noop,  Action::left, Action::up,
                                       Action::right, Action::down, Action::fire};
  EXPECT_EQ(game.minimal_actions(), actions);
}

TEST(SeaquestTest, StartsAtTheSurfaceFacingLeftWithFullOxygen) {
  Seaquest game;
  core::Rng rng(1);
  game.reset(rng);
  const DrawnGrid cells = drawn(game);
  EXPECT_TRUE(cells.at(kSubFront, {0, 5}));
  EXPECT_TRUE(cells.at(kSubBack, {0, 6}));
  EXPECT_EQ(cells.count(kOxygenGauge), 10);
  EXPECT_EQ(cells.count(kDiverGauge), 0);
  EXPECT_FALSE(game.terminal());
}

TEST(SeaquestTest, SurfacingWithoutDiversEndsTheGame) {
  Seaquest game;
  core::Rng rng(1);
  game.reset(rng);
  EXPECT_EQ(game.step(Action::down, rng), 0.0);
  EXPECT_FALSE(game.terminal());
  EXPECT_EQ(game.step(Action::up, rng), 0.0);
  EXPECT_TRUE(game.terminal());
}

TEST(SeaquestTest, RunningOutOfOxygenEndsTheGame) {
  Seaquest game = game_at(quiet_state(5, 4));
  core::Rng rng(1);
  // One unit of oxygen per frame underwater; the gauge shows it in tenths of 200.
  for (int frame = 1; frame <= 20; ++frame) game.step(Action::noop, rng);
  EXPECT_EQ(game.state().oxygen, 180);
  EXPECT_EQ(drawn(game).count(kOxygenGauge), 9);
  for (int frame = 21; frame <= Seaquest::kMaxOxygen; ++frame) {
    game.step(Action::noop, rng);
    ASSERT_FALSE(game.terminal()) << "frame " << frame;
  }
  EXPECT_EQ(drawn(game).count(kOxygenGauge), 0);
  game.step(Action::noop, rng);
  EXPECT_TRUE(game.terminal());
}

TEST(SeaquestTest, SurfacingWithDiversRefillsOxygenDropsOneAndRamps) {
  State state = quiet_state(5, 1);
  state.oxygen = 50;
  state.divers_aboard = 2;
  Seaquest game = game_at(state);
  core::Rng rng(1);
  EXPECT_EQ(game.step(Action::up, rng), 0.0);
  EXPECT_FALSE(game.terminal());
  EXPECT_EQ(game.state().oxygen, Seaquest::kMaxOxygen);
  EXPECT_EQ(game.state().divers_aboard, 1);
  EXPECT_EQ(game.state().enemy_spawn_interval, 19);
  EXPECT_EQ(game.state().enemy_move_interval, 5);

  // Staying at the surface does not surface again.
  game.step(Action::up, rng);
  EXPECT_EQ(game.state().divers_aboard, 1);

  game.step(Action::down, rng);
  game.step(Action::up, rng);
  EXPECT_FALSE(game.terminal());
  EXPECT_EQ(game.state().divers_aboard, 0);
  // Spawning speeds up on every surfacing, movement on every second one.
  EXPECT_EQ(game.state().enemy_spawn_interval, 18);
  EXPECT_EQ(game.state().enemy_move_interval, 4);
  EXPECT_EQ(game.state().ramp_index, 2);
}

TEST(SeaquestTest, WithoutRampingSurfacingKeepsTheSpeeds) {
  State state = quiet_state(5, 1);
  state.divers_aboard = 3;
  Seaquest game = game_at(state, /*difficulty_ramping=*/false);
  core::Rng rng(1);
  for (int i = 0; i < 2; ++i) {
    game.step(Action::up, rng);
    game.step(Action::down, rng);
  }
  EXPECT_EQ(game.state().divers_aboard, 1);
  EXPECT_EQ(game.state().enemy_spawn_interval, Seaquest::kInitialEnemySpawnInterval);
  EXPECT_EQ(game.state().enemy_move_interval, Seaquest::kInitialEnemyMoveInterval);
}

TEST(SeaquestTest, SurfacingWithSixDiversPaysTheRemainingOxygen) {
  State state = quiet_state(5, 1);
  state.oxygen = 117;
  state.divers_aboard = Seaquest::kMaxDivers;
  Seaquest game = game_at(state);
  core::Rng rng(1);
  EXPECT_EQ(game.step(Action::up, rng), 5.0);  // 117 * 10 / 200
  EXPECT_EQ(game.state().oxygen, Seaquest::kMaxOxygen);
  // MinAtar's quirk: the full rescue leaves -1 divers, so the next surfacing is safe.
  EXPECT_EQ(game.state().divers_aboard, -1);
  EXPECT_EQ(drawn(game).count(kDiverGauge), 0);
  game.step(Action::down, rng);
  game.step(Action::up, rng);
  EXPECT_FALSE(game.terminal());
  EXPECT_EQ(game.state().divers_aboard, -2);
}

TEST(SeaquestTest, DiversArePickedUpOnContactUpToSix) {
  State state = quiet_state(5, 3);
  state.divers.push_back({4, 3, +1, 0, 0});  // moves onto the sub this frame
  Seaquest game = game_at(state);
  core::Rng rng(1);
  game.step(Action::noop, rng);
  EXPECT_TRUE(game.state().divers.empty());
  EXPECT_EQ(game.state().divers_aboard, 1);
  const DrawnGrid cells = drawn(game);
  EXPECT_EQ(cells.count(kDiverGauge), 1);
  EXPECT_TRUE(cells.at(kDiverGauge, {9, 8}));

  state.divers_aboard = Seaquest::kMaxDivers;
  game.set_state(state);
  game.step(Action::noop, rng);
  ASSERT_EQ(game.state().divers.size(), 1u);
  EXPECT_EQ(game.state().divers[0].x, 5);  // swims through the full sub
  EXPECT_EQ(game.state().divers_aboard, Seaquest::kMaxDivers);
}

TEST(SeaquestTest, ShootingAFishGivesOnePoint) {
  State state = quiet_state(2, 4);
  state.sub_dx = +1;
  state.fish.push_back({5, 4, -1, 10, 0});  // waits in place
  Seaquest game = game_at(state);
  core::Rng rng(1);
  EXPECT_EQ(game.step(Action::fire, rng), 0.0);  // the bullet flies to x = 3
  EXPECT_TRUE(drawn(game).at(kFriendlyBullet, {4, 3}));
  EXPECT_EQ(game.step(Action::noop, rng), 0.0);
  EXPECT_EQ(game.step(Action::noop, rng), 1.0);
  EXPECT_TRUE(game.state().fish.empty());
  EXPECT_TRUE(game.state().friendly_bullets.empty());
  EXPECT_FALSE(game.terminal());
}

TEST(SeaquestTest, AnEnemySubSwimmingIntoABulletGivesOnePoint) {
  State state = quiet_state(0, 1);
  state.friendly_bullets.push_back({3, 4, +1});
  state.enemy_subs.push_back({5, 4, -1, 0, 5});  // moves this frame
  Seaquest game = game_at(state);
  core::Rng rng(1);
  EXPECT_EQ(game.step(Action::noop, rng), 1.0);
  EXPECT_TRUE(game.state().enemy_subs.empty());
  EXPECT_TRUE(game.state().friendly_bullets.empty());
}

TEST(SeaquestTest, TheSubFiresAtMostEveryFifthFrame) {
  Seaquest game = game_at(quiet_state(9, 2));
  core::Rng rng(1);
  for (int frame = 0; frame < 9; ++frame) game.step(Action::fire, rng);
  // Shots on frames 0 and 5, each flying one cell left per frame from the sub's cell.
  ASSERT_EQ(game.state().friendly_bullets.size(), 2u);
  EXPECT_EQ(game.state().friendly_bullets[0].x, 0);
  EXPECT_EQ(game.state().friendly_bullets[1].x, 5);
}

TEST(SeaquestTest, AnEnemySubFiresEveryEleventhFrame) {
  State state = quiet_state(0, 8);
  state.enemy_subs.push_back({9, 2, -1, 100, 0});  // stays at x = 9
  Seaquest game = game_at(state);
  core::Rng rng(1);
  std::vector<int> firing_frames;
  for (int frame = 0; frame < 30; ++frame) {
    game.step(Action::noop, rng);
    // A bullet flies one cell the frame it is fired, so only a new one is at x = 8.
    for (const Seaquest::Bullet& bullet : game.state().enemy_bullets) {
      if (bullet.x == 8 && bullet.y == 2) firing_frames.push_back(frame);
    }
  }
  EXPECT_EQ(firing_frames, (std::vector<int>{0, 11, 22}));
}

TEST(SeaquestTest, CollidingWithAFishEndsTheGame) {
  State state = quiet_state(5, 3);
  state.fish.push_back({6, 3, -1, 0, 0});
  Seaquest game = game_at(state);
  core::Rng rng(1);
  game.step(Action::noop, rng);
  EXPECT_TRUE(game.terminal());
}

TEST(SeaquestTest, AnEnemyBulletEndsTheGame) {
  State state = quiet_state(5, 3);
  state.enemy_bullets.push_back({7, 3, -1});
  Seaquest game = game_at(state);
  core::Rng rng(1);
  game.step(Action::noop, rng);
  EXPECT_FALSE(game.terminal());
  game.step(Action::noop, rng);
  EXPECT_TRUE(game.terminal());
}

TEST(SeaquestTest, EnemiesSpawnAtTheEdgesOneInThreeASub) {
  Seaquest game;
  core::Rng rng(3);
  constexpr int kGames = 600;
  int subs = 0;
  int from_the_left = 0;
  for (int i = 0; i < kGames; ++i) {
    game.reset(rng);
    // The first enemy spawns on frame 21, and the sub at the surface is out of its reach.
    for (int frame = 1; frame <= Seaquest::kInitialEnemySpawnInterval + 1; ++frame) {
      game.step(Action::noop, rng);
    }
    const State& state = game.state();
    ASSERT_EQ(state.fish.size() + state.enemy_subs.size(), 1u);
    const Seaquest::Swimmer& enemy =
        state.fish.empty() ? state.enemy_subs.front() : state.fish.front();
    EXPECT_EQ(enemy.x, enemy.dx > 0 ? 0 : 9);
    EXPECT_GE(enemy.y, 1);
    EXPECT_LE(enemy.y, 8);
    subs += static_cast<int>(state.enemy_subs.size());
    from_the_left += enemy.dx > 0;
  }
  EXPECT_NEAR(static_cast<double>(subs) / kGames, 1.0 / 3.0, 0.07);
  EXPECT_NEAR(static_cast<double>(from_the_left) / kGames, 0.5, 0.07);
}

// A game well under way: divers aboard, a ramped difficulty and every kind of object.
State game_under_way() {
  State state;
  state.sub_x = 3;
  state.sub_y = 1;  // one frame from surfacing
  state.sub_dx = +1;
  state.oxygen = 87;
  state.divers_aboard = 3;
  state.surfaced = false;
  state.shot_timer = 2;
  state.friendly_bullets = {{5, 4, +1}, {1, 2, -1}};
  state.enemy_bullets = {{6, 7, -1}};
  state.fish = {{2, 6, +1, 1, 0}, {8, 3, -1, 4, 0}};
  state.enemy_subs = {{7, 7, -1, 2, 3}};
  state.divers = {{0, 5, +1, 3, 0}};
  state.enemy_spawn_interval = 17;
  state.enemy_spawn_timer = 6;
  state.diver_spawn_timer = 11;
  state.enemy_move_interval = 4;
  state.ramp_index = 3;
  return state;
}

TEST(SeaquestTest, LoadedStateReplaysTheNext500Frames) {
  // 60 games from a state well under way, each saved after 0-19 frames of random play.
  test_support::expect_loaded_states_replay_from(game_at(game_under_way()), kNumChannels);
}

}  // namespace
}  // namespace mnrl::envs::minatar
