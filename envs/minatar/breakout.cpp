#include "envs/minatar/breakout.h"

#include <algorithm>

namespace mnrl::envs::minatar {
namespace {

// In the order of channel_names().
enum Channel : int { kPaddle, kBall, kTrail, kBrick };

constexpr int kLastCell = kGridSize - 1;
constexpr int kPaddleRow = kLastCell;
constexpr int kFirstBrickRow = 1;
constexpr int kBrickRows = 3;
constexpr int kBallStartRow = 3;
constexpr int kPaddleStartX = 4;

}  // namespace

const std::vector<std::string>& Breakout::channel_names() const {
  static const std::vector<std::string> names = {"paddle", "ball", "trail", "brick"};
  return names;
}

const std::vector<Action>& Breakout::minimal_actions() const {
  static const std::vector<Action> actions = {Action::noop, Action::left, Action::right};
  return actions;
}

void Breakout::reset(core::Rng& rng) {
  // The ball starts in the left or right column, heading down and away from that wall.
  const bool from_left = rng.below(2) == 0;
  ball_x_ = from_left ? 0 : kLastCell;
  ball_y_ = kBallStartRow;
  ball_dx_ = from_left ? 1 : -1;
  ball_dy_ = 1;
  trail_x_ = ball_x_;
  trail_y_ = ball_y_;
  paddle_x_ = kPaddleStartX;
  met_brick_ = false;
  terminal_ = false;
  bricks_.fill(false);
  fill_brick_rows();
}

double Breakout::step(Action action, core::Rng& /*rng*/) {
  if (action == Action::left) paddle_x_ = std::max(0, paddle_x_ - 1);
  if (action == Action::right) paddle_x_ = std::min(kLastCell, paddle_x_ + 1);

  trail_x_ = ball_x_;
  trail_y_ = ball_y_;
  int x = ball_x_ + ball_dx_;
  int y = ball_y_ + ball_dy_;
  // A side wall turns the ball back and keeps it in its column for this frame.
  if (x < 0 || x > kLastCell) {
    x = std::clamp(x, 0, kLastCell);
    ball_dx_ = -ball_dx_;
  }

  double reward = 0.0;
  bool meets_brick = false;
  if (y < 0) {
    y = 0;
    ball_dy_ = -ball_dy_;
  } else if (bricks_[y * kGridSize + x]) {
    meets_brick = true;
    // The brick breaks and the ball bounces back, staying on its row for this frame.
    if (!met_brick_) {
      bricks_[y * kGridSize + x] = false;
      reward = 1.0;
      y = ball_y_;
      ball_dy_ = -ball_dy_;
    }
  } else if (y == kPaddleRow) {
    if (std::none_of(bricks_.begin(), bricks_.end(), [](bool brick) { return brick; })) {
      fill_brick_rows();
    }
    // A paddle under the ball bounces it up; one under the cell it heads for sends it back.
    if (paddle_x_ == ball_x_) {
      ball_dy_ = -ball_dy_;
      y = ball_y_;
    } else if (paddle_x_ == x) {
      ball_dx_ = -ball_dx_;
      ball_dy_ = -ball_dy_;
      y = ball_y_;
    } else {
      terminal_ = true;
    }
  }
  met_brick_ = meets_brick;
  ball_x_ = x;
  ball_y_ = y;
  return reward;
}

void Breakout::draw(const Grid& grid) const {
  grid.set(kPaddle, kPaddleRow, paddle_x_);
  grid.set(kBall, ball_y_, ball_x_);
  grid.set(kTrail, trail_y_, trail_x_);
  for (int cell = 0; cell < kCellsPerChannel; ++cell) {
    if (bricks_[cell]) grid.set(kBrick, cell / kGridSize, cell % kGridSize);
  }
}

void Breakout::fill_brick_rows() {
  std::fill(bricks_.begin() + kFirstBrickRow * kGridSize,
            bricks_.begin() + (kFirstBrickRow + kBrickRows) * kGridSize, true);
}

}  // namespace mnrl::envs::minatar
