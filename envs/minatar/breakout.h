#pragma once

#include <array>
#include <string>
#include <vector>

#include "envs/minatar/minatar_game.h"

namespace mnrl::envs::minatar {

// MinAtar's Breakout. A paddle moves along the bottom row. The ball starts on row 3 at a side
// wall (even odds), moves one cell diagonally per frame and is reflected by the side walls, the
// ceiling and the bricks (rows 1-3, +1 each). On reaching the bottom row it bounces up if the
// paddle is under it, or under the cell it is heading for (which sends it back the way it
// came); otherwise the game ends. Once every brick is broken, the three rows come back when the
// ball next reaches the bottom row. No difficulty ramp, no time limit. Channels: paddle, ball,
// trail (the ball's previous cell), brick. Minimal actions: noop, left, right.
class Breakout final : public GameOfFields<Breakout> {
 public:
  // Breakout has no difficulty ramp; the flag is taken so that every game is built alike.
  explicit Breakout(bool /*difficulty_ramping*/ = true) {}

  const std::vector<std::string>& channel_names() const override;
  const std::vector<Action>& minimal_actions() const override;

  void reset(core::Rng& rng) override;
  double step(Action action, core::Rng& rng) override;
  bool terminal() const override { return terminal_; }
  void draw(const Grid& grid) const override;

 private:
  void fill_brick_rows();

  int paddle_x_ = 0;
  int ball_x_ = 0;
  int ball_y_ = 0;
  // The ball's velocity: each component is +1 or -1 (y grows downwards).
  int ball_dx_ = 0;
  int ball_dy_ = 0;
  // The ball's cell before the last frame: the trail channel.
  int trail_x_ = 0;
  int trail_y_ = 0;
  // Whether the last frame's move met a brick. A brick met on the very next frame is
  // neither broken nor bounced off: the ball moves into its cell (MinAtar's rule).
  bool met_brick_ = false;
  bool terminal_ = false;
  // Row-major, [y * kGridSize + x]; only rows 1-3 ever hold bricks.
  std::array<bool, kCellsPerChannel> bricks_{};

  friend struct core::StateFieldsAccess;
  template <class Fields>
  void state_fields(Fields& fields) {
    fields.tag("minatar_breakout");
    fields(paddle_x_, ball_x_, ball_y_, ball_dx_, ball_dy_, trail_x_, trail_y_, met_brick_,
           terminal_, bricks_);
  }
};

}  // namespace mnrl::envs::minatar
