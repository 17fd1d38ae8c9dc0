#pragma once

#include <array>
#include <string>
#include <vector>

#include "envs/minatar/minatar_game.h"

namespace mnrl::envs::minatar {

// MinAtar's Freeway. The chicken starts at the bottom of column 4 and moves up or down one row
// at most every 3 frames. Reaching the top row gives +1, sends the chicken back to the bottom
// and gives every car a new random speed and direction. One car drives on each of rows 1-8,
// wrapping around the screen, and moves once every 2 to 6 frames (speed 1 to 5); a car meeting
// the chicken sends it back to the bottom. The game ends on frame 2501, after a 2500-frame timer
// runs out. No difficulty ramp. Channels: chicken, car, then speed1-speed5: a car's trail (the
// cell behind it) in the channel of its speed. Minimal actions: noop, up, down.
class Freeway final : public GameOfFields<Freeway> {
 public:
  // Freeway has no difficulty ramp; the flag is taken so that every game is built alike.
  explicit Freeway(bool /*difficulty_ramping*/ = true) {}

  const std::vector<std::string>& channel_names() const override;
  const std::vector<Action>& minimal_actions() const override;

  void reset(core::Rng& rng) override;
  double step(Action action, core::Rng& rng) override;
  bool terminal() const override { return terminal_; }
  void draw(const Grid& grid) const override;

 private:
  // Car i drives on row i + 1.
  struct Car {
    int x = 0;
    // Signed: the sign is the direction, the size how many frames the car waits between moves.
    int velocity = 0;
    // Frames left before the car's next move; it moves on the frame it is found at zero.
    int wait = 0;
  };
  static constexpr int kNumCars = 8;

  // Draws every car's speed and direction anew and restarts its wait; positions are kept.
  void new_car_velocities(core::Rng& rng);
  // Sends the chicken back to the bottom row if the car on `row` is on its cell.
  void check_hit(int row, const Car& car);

  std::array<Car, kNumCars> cars_{};
  int chicken_y_ = 0;
  // Frames before the chicken may move again.
  int move_cooldown_ = 0;
  // Counts down once per frame; the game ends when it goes below zero.
  int time_left_ = 0;
  bool terminal_ = false;

  friend struct core::StateFieldsAccess;
  template <class Fields>
  void state_fields(Fields& fields) {
    fields.tag("minatar_freeway");
    fields(cars_, chicken_y_, move_cooldown_, time_left_, terminal_);
  }
};

}  // namespace mnrl::envs::minatar
