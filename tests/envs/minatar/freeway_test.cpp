#include "envs/minatar/freeway.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/rng.h"
#include "tests/envs/minatar/game_test_support.h"

namespace mnrl::envs::minatar {
namespace {

enum Channel : int { kChicken, kCar, kSpeed1 };
constexpr int kNumChannels = 7;
constexpr int kChickenX = 4;

using test_support::Cell;

// What the game draws, read back.
class Frame : public test_support::DrawnGrid {
 public:
  explicit Frame(const Game& game) : DrawnGrid(game, kNumChannels) {}
  int chicken_row() const {
    const std::vector<Cell> cells = cells_of(kChicken);
    return cells.size() == 1 && cells[0].second == kChickenX ? cells[0].first : -1;
  }
};

// A car as the frame shows it: its column, and the trail behind it, whose channel gives the
// speed and whose side gives the direction.
struct SeenCar {
  int x = -1;
  int speed = 0;
  int direction = 0;
  bool operator==(const SeenCar& other) const {
    return x == other.x && speed == other.speed && direction == other.direction;
  }
};

// The car on each of rows 1-8; fails the test unless each row shows one car and one trail cell
// right next to it (across the screen's edge if need be).
std::array<SeenCar, 8> seen_cars(const Frame& frame) {
  std::array<SeenCar, 8> cars;
  std::array<int, kGridSize> cars_in_row{};
  for (const Cell& cell : frame.cells_of(kCar)) {
    ++cars_in_row[cell.first];
    if (cell.first >= 1 && cell.first <= 8) cars[cell.first - 1].x = cell.second;
  }
  EXPECT_EQ(cars_in_row, (std::array<int, kGridSize>{0, 1, 1, 1, 1, 1, 1, 1, 1, 0}));
  for (int speed = 1; speed <= 5; ++speed) {
    for (const Cell& trail : frame.cells_of(kSpeed1 + speed - 1)) {
      SeenCar& car = cars[trail.first - 1];
      EXPECT_EQ(car.speed, 0) << "two trails in row " << trail.first;
      car.speed = speed;
      const int ahead = (car.x - trail.second + kGridSize) % kGridSize;
      EXPECT_TRUE(ahead == 1 || ahead == kGridSize - 1) << "a trail away from its car";
      car.direction = ahead == 1 ? 1 : -1;
    }
  }
  for (const SeenCar& car : cars) EXPECT_NE(car.speed, 0) << "a car without a trail";
  return cars;
}

// Each car's speed times its direction.
std::array<int, 8> velocities(const Frame& frame) {
  std::array<int, 8> velocities{};
  const std::array<SeenCar, 8> cars = seen_cars(frame);
  for (int row = 0; row < 8; ++row) velocities[row] = cars[row].speed * cars[row].direction;
  return velocities;
}

TEST(FreewayTest, HasMinAtarsChannelsAndMinimalActions) {
  const Freeway game;
  EXPECT_EQ(game.channel_names(), (std::vector<std::string>{"chicken", "car", "speed1", "speed2",
                                                            "speed3", "speed4", "speed5"}));
  EXPECT_EQ(game.minimal_actions(), (std::vector<Action>{Action::noop, Action::up, Action::down}));
}

TEST(FreewayTest, StartsAtTheBottomWithOneCarPerRowAtTheLeftEdge) {
  Freeway game;
  core::Rng rng(1);
  std::array<int, 6> speeds_seen{};
  std::array<int, 3> directions_seen{};
  for (int episode = 0; episode < 20; ++episode) {
    game.reset(rng);
    const Frame frame(game);
    EXPECT_EQ(frame.chicken_row(), 9);
    for (const SeenCar& car : seen_cars(frame)) {
      EXPECT_EQ(car.x, 0);
      ++speeds_seen[car.speed];
      ++directions_seen[car.direction + 1];
    }
  }
  for (int speed = 1; speed <= 5; ++speed) EXPECT_GT(speeds_seen[speed], 10) << speed;
  EXPECT_GT(directions_seen[0], 40);
  EXPECT_GT(directions_seen[2], 40);
}

TEST(FreewayTest, CarsMoveOneCellEverySpeedPlusOneFramesAndWrapAround) {
  Freeway game;
  core::Rng rng(2);
  game.reset(rng);
  // The chicken stays at the bottom, so the speeds are never redrawn.
  const std::array<SeenCar, 8> start = seen_cars(Frame(game));
  for (int t = 1; t <= 60; ++t) {
    game.step(Action::noop, rng);
    const std::array<SeenCar, 8> cars = seen_cars(Frame(game));
    for (int row = 0; row < 8; ++row) {
      const SeenCar& car = start[row];
      const int moves = t / (car.speed + 1);
      const int x = ((car.direction * moves) % kGridSize + kGridSize) % kGridSize;
      ASSERT_EQ(cars[row], (SeenCar{x, car.speed, car.direction}))
          << "row " << row + 1 << ", step " << t;
    }
  }
}

// Plays one episode (2501 frames) from a new game with Rng `seed`, holding up, and calls
// `check(t, reward, previous, frame)` after each frame t with what was drawn before and after
// it; a fatal failure in `check` ends the episode.
void hold_up_for_an_episode(
    std::uint64_t seed, const std::function<void(int, double, const Frame&, const Frame&)>& check) {
  Freeway game;
  core::Rng rng(seed);
  game.reset(rng);
  Frame previous(game);
  for (int t = 1; t <= 2501; ++t) {
    const double reward = game.step(Action::up, rng);
    const Frame frame(game);
    check(t, reward, previous, frame);
    if (::testing::Test::HasFatalFailure()) return;
    previous = frame;
  }
}

// Holding up: the chicken climbs one row every third frame from the fourth on, unless a car
// sends it back; from row 1 it scores, goes back to the bottom and the car speeds are redrawn.
TEST(FreewayTest, ChickenClimbsEveryThirdFrameAndScoresAtTheTop) {
  int score = 0;
  ASSERT_NO_FATAL_FAILURE(hold_up_for_an_episode(
      3, [&](int t, double reward, const Frame& previous, const Frame& frame) {
        const int before = previous.chicken_row();
        const int after = frame.chicken_row();
        const bool may_move = t >= 4 && t % 3 == 1;
        if (reward != 0.0) {
          ASSERT_EQ(reward, 1.0);
          EXPECT_TRUE(may_move) << "step " << t;
          EXPECT_EQ(before, 1);
          EXPECT_EQ(after, 9);
          EXPECT_NE(velocities(previous), velocities(frame)) << "speeds not redrawn at step " << t;
          ++score;
        } else if (after != 9) {
          EXPECT_EQ(after, may_move ? before - 1 : before) << "step " << t;
        } else {
          EXPECT_EQ(velocities(previous), velocities(frame)) << "speeds redrawn at step " << t;
        }
      }));
  EXPECT_GT(score, 2);
}

TEST(FreewayTest, CarsSendTheChickenBackToTheBottom) {
  int hits = 0;
  hold_up_for_an_episode(4, [&](int t, double reward, const Frame& previous, const Frame& frame) {
    const int before = previous.chicken_row();
    // The chicken is never drawn on a car.
    EXPECT_FALSE(frame.at(kCar, {frame.chicken_row(), kChickenX})) << "step " << t;
    if (reward == 0.0 && before != 9 && frame.chicken_row() == 9) {
      // A car was on the chicken's cell (after its climb, if any) before or after moving.
      bool car_met = false;
      for (const int row : {before, before - 1}) {
        car_met |= previous.at(kCar, {row, kChickenX}) || frame.at(kCar, {row, kChickenX});
      }
      EXPECT_TRUE(car_met) << "sent back without a car at step " << t;
      ++hits;
    }
  });
  EXPECT_GT(hits, 5);
}

TEST(FreewayTest, EndsOnFrame2501) {
  Freeway game;
  core::Rng rng(5);
  for (int episode = 0; episode < 2; ++episode) {
    game.reset(rng);
    for (int t = 1; t <= 2500; ++t) {
      game.step(static_cast<Action>(rng.below(kNumActions)), rng);
      ASSERT_FALSE(game.terminal()) << "step " << t;
    }
    game.step(Action::noop, rng);
    EXPECT_TRUE(game.terminal());
  }
}

TEST(FreewayTest, LoadedStateReplaysTheNext500Frames) {
  Freeway game;
  core::Rng rng(7);
  game.reset(rng);
  // Late in the episode, so that the replay runs through its end and a reset.
  for (int t = 0; t < 2300; ++t) game.step(static_cast<Action>(rng.below(kNumActions)), rng);

  Freeway loaded;
  core::Rng actions(8);
  int episode_ends = 0;
  ASSERT_NO_FATAL_FAILURE(test_support::expect_loaded_state_replays(
      game, loaded, kNumChannels, rng, actions, 500, [&] { episode_ends += game.terminal(); }));
  EXPECT_EQ(episode_ends, 1);
}

}  // namespace
}  // namespace mnrl::envs::minatar
