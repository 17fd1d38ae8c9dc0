#include "envs/minatar/breakout.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/rng.h"
#include "tests/envs/minatar/game_test_support.h"

namespace mnrl::envs::minatar {
namespace {

enum Channel : int { kPaddle, kBall, kTrail, kBrick };
constexpr int kNumChannels = 4;

using test_support::Cell;

// What the game draws, read back.
class Frame : public test_support::DrawnGrid {
 public:
  explicit Frame(const Game& game) : DrawnGrid(game, kNumChannels) {}
};

// Resets until the ball starts in the left column (`left`) or the right one.
void reset_with_ball_on_side(Breakout& game, bool left, core::Rng& rng) {
  do {
    game.reset(rng);
  } while ((Frame(game).only(kBall).second == 0) != left);
}

Cell mirrored(Cell cell, bool mirror) {
  return mirror ? Cell{cell.first, kGridSize - 1 - cell.second} : cell;
}

// Moves the paddle toward the ball's column.
Action follow_ball(const Frame& frame) {
  const int ball_x = frame.only(kBall).second;
  const int paddle_x = frame.only(kPaddle).second;
  if (ball_x < paddle_x) return Action::left;
  return ball_x > paddle_x ? Action::right : Action::noop;
}

TEST(BreakoutTest, HasMinAtarsChannelsAndMinimalActions) {
  const Breakout game;
  EXPECT_EQ(game.channel_names(), (std::vector<std::string>{"paddle", "ball", "trail", "brick"}));
  EXPECT_EQ(game.minimal_actions(),
            (std::vector<Action>{Action::noop, Action::left, Action::right}));
}

TEST(BreakoutTest, StartsWithThreeBrickRowsAndTheBallOnASideWall) {
  Breakout game;
  core::Rng rng(1);
  int left_starts = 0;
  for (int episode = 0; episode < 40; ++episode) {
    game.reset(rng);
    const Frame frame(game);
    const std::vector<Cell> bricks = frame.cells_of(kBrick);
    ASSERT_EQ(bricks.size(), 30u);
    for (const Cell& brick : bricks) EXPECT_TRUE(brick.first >= 1 && brick.first <= 3);
    EXPECT_EQ(frame.only(kPaddle), Cell(9, 4));
    const Cell ball = frame.only(kBall);
    EXPECT_TRUE(ball == Cell(3, 0) || ball == Cell(3, 9));
    EXPECT_EQ(frame.only(kTrail), ball);
    left_starts += ball.second == 0;
  }
  EXPECT_GT(left_starts, 5);
  EXPECT_LT(left_starts, 35);
}

// One scripted game from each start (the right start mirrors the left one): the paddle catches
// the ball, which then bounces off the right wall, breaks a brick, and falls past the paddle.
TEST(BreakoutTest, BallBouncesOffThePaddleTheWallAndABrickThenIsMissed) {
  // The ball's cells after each step from the left start, the paddle moved once to column 5:
  // off the paddle under the ball on step 6 (up, still heading right), off the right wall on
  // step 10 (straight up for a frame, now heading left), off the brick at (3, 8) on step 11,
  // which scores, and past the paddle on step 16, which ends the game.
  const std::vector<Cell> expected = {{4, 1}, {5, 2}, {6, 3}, {7, 4}, {8, 5}, {8, 6},
                                      {7, 7}, {6, 8}, {5, 9}, {4, 9}, {4, 8}, {5, 7},
                                      {6, 6}, {7, 5}, {8, 4}, {9, 3}};
  constexpr std::size_t kScoringStep = 11;
  core::Rng rng(2);
  for (const bool mirror : {false, true}) {
    SCOPED_TRACE(mirror ? "ball from the right" : "ball from the left");
    Breakout game;
    reset_with_ball_on_side(game, !mirror, rng);
    // Column 5 mirrors to column 4, where the paddle starts.
    std::vector<Action> actions(expected.size(), Action::noop);
    if (!mirror) actions[0] = Action::right;
    Cell previous_ball = Frame(game).only(kBall);
    for (std::size_t t = 0; t < expected.size(); ++t) {
      SCOPED_TRACE("step " + std::to_string(t + 1));
      ASSERT_FALSE(game.terminal());
      EXPECT_EQ(game.step(actions[t], rng), t + 1 == kScoringStep ? 1.0 : 0.0);
      const Frame frame(game);
      EXPECT_EQ(frame.only(kBall), mirrored(expected[t], mirror));
      EXPECT_EQ(frame.only(kTrail), previous_ball);
      EXPECT_EQ(game.terminal(), t + 1 == expected.size());
      previous_ball = frame.only(kBall);
    }
    const Frame end(game);
    EXPECT_FALSE(end.at(kBrick, mirrored({3, 8}, mirror)));
    EXPECT_EQ(end.cells_of(kBrick).size(), 29u);
  }
}

TEST(BreakoutTest, PaddleCornerSendsTheBallBackTheWayItCame) {
  core::Rng rng(3);
  for (const bool mirror : {false, true}) {
    SCOPED_TRACE(mirror ? "ball from the right" : "ball from the left");
    Breakout game;
    reset_with_ball_on_side(game, !mirror, rng);
    // The paddle goes to column 6 (mirrored: 3), under where the ball will head from (8, 5).
    const std::vector<Action> moves = mirror ? std::vector<Action>{Action::left}
                                             : std::vector<Action>{Action::right, Action::right};
    for (int t = 0; t < 5; ++t) {
      game.step(t < static_cast<int>(moves.size()) ? moves[t] : Action::noop, rng);
    }
    ASSERT_EQ(Frame(game).only(kBall), mirrored({8, 5}, mirror));
    for (const Cell& ball : {Cell{8, 6}, Cell{7, 5}, Cell{6, 4}}) {
      game.step(Action::noop, rng);
      EXPECT_EQ(Frame(game).only(kBall), mirrored(ball, mirror));
      EXPECT_FALSE(game.terminal());
    }
  }
}

TEST(BreakoutTest, MissingTheBallEndsTheGame) {
  Breakout game;
  core::Rng rng(4);
  for (int episode = 0; episode < 10; ++episode) {
    game.reset(rng);
    // The paddle runs to the left wall; from either start the ball reaches the bottom row on
    // the sixth step, away from the paddle.
    for (int t = 1; t <= 6; ++t) {
      ASSERT_FALSE(game.terminal()) << "step " << t;
      EXPECT_EQ(game.step(Action::left, rng), 0.0);
    }
    EXPECT_TRUE(game.terminal());
    EXPECT_EQ(Frame(game).only(kBall).first, 9);
  }
}

TEST(BreakoutTest, EveryBrickScoresOneAndClearedBricksComeBack) {
  Breakout game;
  core::Rng rng(5);
  game.reset(rng);
  int bricks = 30;
  double score = 0.0;
  int refills = 0;
  int frames_on_a_brick = 0;
  double previous_reward = 0.0;
  for (int t = 1; t <= 400; ++t) {
    const double reward = game.step(follow_ball(Frame(game)), rng);
    ASSERT_FALSE(game.terminal()) << "the paddle following the ball missed it at step " << t;
    const Frame frame(game);
    const int now = static_cast<int>(frame.cells_of(kBrick).size());
    // Bouncing off a brick can leave the ball on another one, and a brick met on the next frame
    // is passed into, not broken: only then does the ball share a cell with a brick.
    if (frame.at(kBrick, frame.only(kBall))) {
      EXPECT_TRUE(reward == 1.0 || previous_reward == 1.0) << "step " << t;
      ++frames_on_a_brick;
    }
    previous_reward = reward;
    if (now > bricks) {
      // New rows come only once every brick is gone, when the ball reaches the paddle's row.
      EXPECT_EQ(bricks, 0);
      EXPECT_EQ(now, 30);
      for (const Cell& brick : frame.cells_of(kBrick))
        EXPECT_TRUE(brick.first >= 1 && brick.first <= 3);
      EXPECT_EQ(frame.only(kTrail).first, 8);
      EXPECT_EQ(reward, 0.0);
      ++refills;
    } else {
      EXPECT_EQ(reward, bricks - now) << "step " << t;
    }
    score += reward;
    bricks = now;
  }
  EXPECT_EQ(refills, 1);
  EXPECT_GT(score, 30.0);
  EXPECT_GT(frames_on_a_brick, 0);
}

TEST(BreakoutTest, LoadedStateReplaysTheNext500Frames) {
  Breakout game;
  core::Rng rng(7);
  game.reset(rng);
  for (int t = 0; t < 3; ++t) game.step(Action::right, rng);

  Breakout loaded;
  core::Rng actions(8);
  test_support::expect_loaded_state_replays(game, loaded, kNumChannels, rng, actions, 500);
}

}  // namespace
}  // namespace mnrl::envs::minatar
