#include "envs/minatar/asterix.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "tests/envs/minatar/game_test_support.h"

namespace mnrl::envs::minatar {
namespace {

enum Channel : int { kPlayer, kEnemy, kTrail, kGold };
constexpr int kNumChannels = 4;

using test_support::Cell;
using test_support::DrawnGrid;

// What the game draws, read back.
class Frame : public DrawnGrid {
 public:
  explicit Frame(const Game& game) : DrawnGrid(game, kNumChannels) {}
  // The one player cell; {-1, -1} unless exactly one is drawn.
  Cell player() const { return only(kPlayer); }
  // The column of the object (enemy or gold) in each row, -1 where there is none; fails the
  // test if a row holds two.
  std::array<int, kGridSize> object_columns() const {
    std::array<int, kGridSize> columns;
    columns.fill(-1);
    for (const int channel : {kEnemy, kGold}) {
      for (const Cell& cell : cells_of(channel)) {
        EXPECT_EQ(columns[cell.first], -1) << "two objects in row " << cell.first;
        columns[cell.first] = cell.second;
      }
    }
    return columns;
  }
};

// Whether some `depth` next actions keep the game going, found by playing copies of the game
// and its Rng; the first of them goes to `first`.
bool can_survive(const Asterix& game, const core::Rng& rng, int depth, Action* first) {
  for (const Action action : game.minimal_actions()) {
    Asterix trial = game;
    core::Rng trial_rng = rng;
    trial.step(action, trial_rng);
    if (trial.terminal()) continue;
    if (depth == 1 || can_survive(trial, trial_rng, depth - 1, nullptr)) {
      if (first != nullptr) *first = action;
      return true;
    }
  }
  return false;
}

// The frames on which objects moved and spawned, and the difficulty level after each frame
// (levels[t] after frame t), over `frames` frames played by looking 6 frames ahead.
struct Timeline {
  std::vector<int> moves;
  std::vector<int> spawns;
  std::vector<int> levels;
};

Timeline play_safely(Asterix& game, core::Rng& rng, int frames) {
  Timeline timeline;
  timeline.levels.push_back(game.difficulty_level());
  std::array<int, kGridSize> before = Frame(game).object_columns();
  for (int t = 1; t <= frames; ++t) {
    Action action = Action::noop;
    EXPECT_TRUE(can_survive(game, rng, 6, &action)) << "no way out at frame " << t;
    game.step(action, rng);
    if (game.terminal()) {
      ADD_FAILURE() << "caught at frame " << t;
      break;
    }
    const std::array<int, kGridSize> after = Frame(game).object_columns();
    bool moved = false;
    bool spawned = false;
    for (int row = 0; row < kGridSize; ++row) {
      moved |= before[row] != -1 && after[row] != -1 && before[row] != after[row];
      spawned |= before[row] == -1 && after[row] != -1;
    }
    if (moved) timeline.moves.push_back(t);
    if (spawned) timeline.spawns.push_back(t);
    timeline.levels.push_back(game.difficulty_level());
    before = after;
  }
  return timeline;
}

// The gaps between consecutive frames of `frames` that lie in [from, to].
std::vector<int> gaps_within(const std::vector<int>& frames, int from, int to) {
  std::vector<int> gaps;
  for (std::size_t i = 1; i < frames.size(); ++i) {
    if (frames[i - 1] >= from && frames[i] <= to) gaps.push_back(frames[i] - frames[i - 1]);
  }
  return gaps;
}

TEST(AsterixTest, HasMinAtarsChannelsAndMinimalActions) {
  const Asterix game;
  EXPECT_EQ(game.channel_names(), (std::vector<std::string>{"player", "enemy", "trail", "gold"}));
  EXPECT_EQ(game.minimal_actions(), (std::vector<Action>{Action::noop, Action::left, Action::up,
                                                         Action::right, Action::down}));
}

TEST(AsterixTest, PlayerMovesOneCellPerFrameWithinRows1To8) {
  Asterix game;
  core::Rng rng(1);
  // No object comes before frame 11.
  const std::vector<std::pair<Action, Cell>> moves = {
      {Action::up, {4, 5}},   {Action::up, {3, 5}},    {Action::up, {2, 5}},
      {Action::up, {1, 5}},   {Action::up, {1, 5}},    {Action::left, {1, 4}},
      {Action::fire, {1, 4}}, {Action::right, {1, 5}}, {Action::down, {2, 5}},
      {Action::noop, {2, 5}}};
  game.reset(rng);
  EXPECT_EQ(Frame(game).player(), Cell(5, 5));
  for (const auto& [action, cell] : moves) {
    game.step(action, rng);
    EXPECT_EQ(Frame(game).player(), cell);
  }
  game.reset(rng);
  for (int t = 0; t < 10; ++t) game.step(t < 5 ? Action::down : Action::right, rng);
  EXPECT_EQ(Frame(game).player(), Cell(8, 9));
  game.reset(rng);
  for (int t = 0; t < 10; ++t) game.step(Action::left, rng);
  EXPECT_EQ(Frame(game).player(), Cell(5, 0));
}

// Objects spawn on frames 11, 21, ... and move on frames 6, 11, 16, ...: a new object is first
// seen one cell in from its edge, with its trail on the edge.
TEST(AsterixTest, ObjectsSpawnEvery10FramesAtAnEdgeOfAFreeRow) {
  Asterix game;
  core::Rng rng(2);
  int spawns = 0;
  int golds = 0;
  int from_left = 0;
  for (int episode = 0; episode < 60; ++episode) {
    game.reset(rng);
    std::array<int, kGridSize> before = Frame(game).object_columns();
    // Until frame 21 the objects stay more than a cell away from the player's column 5.
    for (int t = 1; t <= 21; ++t) {
      game.step(Action::noop, rng);
      const Frame frame(game);
      const std::array<int, kGridSize> after = frame.object_columns();
      const int count = static_cast<int>(
          std::count_if(after.begin(), after.end(), [](int x) { return x != -1; }));
      ASSERT_EQ(count, (t >= 11) + (t >= 21)) << "frame " << t;
      for (int row = 0; row < kGridSize; ++row) {
        if (before[row] != -1 || after[row] == -1) continue;
        EXPECT_TRUE(row >= 1 && row <= 8);
        ASSERT_TRUE(after[row] == 1 || after[row] == 8);
        EXPECT_TRUE(frame.at(kTrail, {row, after[row] == 1 ? 0 : 9}));
        ++spawns;
        golds += frame.at(kGold, {row, after[row]});
        from_left += after[row] == 1;
      }
      before = after;
    }
  }
  ASSERT_EQ(spawns, 120);
  EXPECT_NEAR(golds, 40, 15);
  EXPECT_NEAR(from_left, 60, 20);
}

// How the player meets an object in its row.
enum class Meeting { kWaitsForIt, kStepsOntoIt };

// Over episodes: lets the first object spawn (frame 11), walks the player into its row, keeping
// to column 5, and meets the object as `meeting` says. Gold must give +1 and disappear, an enemy
// must end the game; both are met 3 times.
void check_meetings(Meeting meeting, std::uint64_t seed) {
  Asterix game;
  core::Rng rng(seed);
  int golds = 0;
  int enemies = 0;
  for (int episode = 0; episode < 100 && (golds < 3 || enemies < 3); ++episode) {
    game.reset(rng);
    for (int t = 1; t <= 11; ++t) game.step(Action::noop, rng);
    const Frame first(game);
    const std::array<int, kGridSize> columns = first.object_columns();
    const int row = static_cast<int>(
        std::find_if(columns.begin(), columns.end(), [](int x) { return x != -1; }) -
        columns.begin());
    ASSERT_LT(row, kGridSize);
    const bool gold = first.at(kGold, {row, columns[row]});
    int frame = 11;
    while (Frame(game).player().first != row) {
      game.step(row < Frame(game).player().first ? Action::up : Action::down, rng);
      ++frame;
    }
    // Objects move on frames 11, 16, 21, ...: from column 1 this one is next to the player
    // after frame 26 and reaches it on frame 31; from column 8, after frame 21 and on frame 26.
    const bool from_left = columns[row] == 1;
    const bool waits = meeting == Meeting::kWaitsForIt;
    const int contact = waits ? (from_left ? 31 : 26) : (from_left ? 27 : 22);
    while (frame < contact - 1) {
      ASSERT_EQ(game.step(Action::noop, rng), 0.0);
      ASSERT_FALSE(game.terminal());
      ++frame;
    }
    const Action last_action = waits ? Action::noop : from_left ? Action::left : Action::right;
    const double reward = game.step(last_action, rng);
    const Frame last(game);
    if (gold) {
      EXPECT_EQ(reward, 1.0);
      EXPECT_FALSE(game.terminal());
      EXPECT_EQ(last.object_columns()[row], -1);
      ++golds;
    } else {
      EXPECT_EQ(reward, 0.0);
      EXPECT_TRUE(game.terminal());
      EXPECT_TRUE(last.at(kEnemy, last.player()));
      ++enemies;
    }
  }
  EXPECT_GE(golds, 3);
  EXPECT_GE(enemies, 3);
}

TEST(AsterixTest, GoldReachingThePlayerScoresOneAndAnEnemyEndsTheGame) {
  check_meetings(Meeting::kWaitsForIt, 3);
}

TEST(AsterixTest, SteppingOntoGoldScoresOneAndOntoAnEnemyEndsTheGame) {
  check_meetings(Meeting::kStepsOntoIt, 4);
}

TEST(AsterixTest, WithoutRampingTheTimingNeverChanges) {
  Asterix game(false);
  core::Rng rng(4);
  game.reset(rng);
  const Timeline timeline = play_safely(game, rng, 1000);
  for (const int level : timeline.levels) EXPECT_EQ(level, 0);
  // A move or spawn may go unseen (no object to see it, no free row), never come early.
  for (const int gap : gaps_within(timeline.moves, 0, 1000)) EXPECT_EQ(gap % 5, 0);
  for (const int frame : timeline.spawns) EXPECT_EQ(frame % 10, 1);
  EXPECT_GT(timeline.moves.size(), 100u);
}

// Every 102 frames the difficulty ramps: one frame less between spawns each time, and between
// moves every second time, down to a spawn and a move every frame.
TEST(AsterixTest, RampingSpeedsUpSpawnsAndMoves) {
  Asterix game;
  core::Rng rng(5);
  game.reset(rng);
  const Timeline timeline = play_safely(game, rng, 1000);
  for (int t = 0; t <= 1000; ++t) EXPECT_EQ(timeline.levels[t], std::min(9, t / 102)) << t;

  const std::vector<int> early_spawns(
      timeline.spawns.begin(),
      std::find_if(timeline.spawns.begin(), timeline.spawns.end(), [](int t) { return t > 102; }));
  EXPECT_EQ(early_spawns, (std::vector<int>{11, 21, 31, 41, 51, 61, 71, 81, 91, 101}));
  const std::vector<int> early_moves = gaps_within(timeline.moves, 0, 204);
  ASSERT_FALSE(early_moves.empty());
  for (const int gap : early_moves) EXPECT_EQ(gap % 5, 0);

  // The move interval reaches one frame at frame 816, the spawn interval at frame 918.
  const std::vector<int> late_moves = gaps_within(timeline.moves, 820, 1000);
  const std::vector<int> late_spawns = gaps_within(timeline.spawns, 920, 1000);
  ASSERT_GT(late_moves.size(), 100u);
  ASSERT_FALSE(late_spawns.empty());
  EXPECT_EQ(*std::max_element(late_moves.begin(), late_moves.end()), 1);
  EXPECT_EQ(*std::min_element(late_spawns.begin(), late_spawns.end()), 1);
}

TEST(AsterixTest, LoadedStateReplaysTheNext500Frames) {
  Asterix game;
  core::Rng rng(7);
  game.reset(rng);
  // Far enough in for objects and a ramped difficulty.
  play_safely(game, rng, 300);

  Asterix loaded;
  core::Rng actions(8);
  test_support::expect_loaded_state_replays(game, loaded, kNumChannels, rng, actions, 500, [&] {
    ASSERT_EQ(game.difficulty_level(), loaded.difficulty_level());
  });
}

}  // namespace
}  // namespace mnrl::envs::minatar
