#pragma once

#include <array>
#include <string>
#include <vector>

#include "envs/minatar/minatar_game.h"

namespace mnrl::envs::minatar {

// MinAtar's Asterix. The player moves one cell per frame in four directions, within rows 1-8.
// Objects enter at the left or right edge (even odds) of a random free row among rows 1-8, gold
// with probability 1/3 and otherwise an enemy, and cross the screen together, one cell per move.
// At first a spawn comes every 10 frames (from frame 11) and a move every 5 (from frame 6).
// Touching gold gives +1 and removes it; touching an enemy ends the game; there is no time
// limit. With difficulty ramping, every 102 frames the spawn interval shrinks by one frame, and
// every second time the move interval too, until both are down to one frame. Channels: player,
// enemy, trail (the cell behind an object), gold. Minimal actions: noop, left, up, right, down.
class Asterix final : public GameOfFields<Asterix> {
 public:
  explicit Asterix(bool difficulty_ramping = true) : difficulty_ramping_(difficulty_ramping) {}

  const std::vector<std::string>& channel_names() const override;
  const std::vector<Action>& minimal_actions() const override;

  void reset(core::Rng& rng) override;
  double step(Action action, core::Rng& rng) override;
  bool terminal() const override { return terminal_; }
  void draw(const Grid& grid) const override;

  // How many times the difficulty has ramped up (MinAtar's difficulty_ramp()).
  int difficulty_level() const { return ramp_count_; }

 private:
  // The object in slot i travels along row i + 1.
  struct Object {
    bool present = false;
    bool gold = false;
    bool moves_right = false;
    int x = 0;
  };
  static constexpr int kNumSlots = 8;

  // Puts a new object in a random free slot; none when every slot is taken.
  void spawn(core::Rng& rng);
  // If `object` (in row `row`) is on the player's cell: gold is collected (the reward is
  // returned) and an enemy ends the game.
  double touch(Object& object, int row);

  bool difficulty_ramping_;
  std::array<Object, kNumSlots> objects_{};
  int player_x_ = 0;
  int player_y_ = 0;
  // Spawns and moves happen on the frame their timer is found at zero; it then restarts from
  // the interval and counts down that same frame, so they come every `interval` frames.
  int spawn_interval_ = 0;
  int spawn_timer_ = 0;
  int move_interval_ = 0;
  int move_timer_ = 0;
  // Counts down once per frame; the difficulty ramps on the frame it is found below zero.
  int ramp_timer_ = 0;
  int ramp_count_ = 0;
  bool terminal_ = false;

  friend struct core::StateFieldsAccess;
  template <class Fields>
  void state_fields(Fields& fields) {
    fields.tag("minatar_asterix");
    fields(core::must_match(difficulty_ramping_, "difficulty ramping"));
    for (Object& object : objects_)
      fields(object.present, object.gold, object.moves_right, object.x);
    fields(player_x_, player_y_, spawn_interval_, spawn_timer_, move_interval_, move_timer_,
           ramp_timer_, ramp_count_, terminal_);
  }
};

}  // namespace mnrl::envs::minatar
