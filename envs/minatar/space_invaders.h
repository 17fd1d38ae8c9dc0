#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/rng.h"
#include "core/state_stream.h"
#include "envs/minatar/minatar_game.h"

namespace mnrl::envs::minatar {

// MinAtar's SpaceInvaders. The player's cannon moves along the bottom row and fires upward at a
// formation of 4x6 aliens, which steps sideways and, on reaching a wall, steps down and turns
// back; the alien nearest the cannon fires downward every 10 frames. +1 for each alien shot.
// The formation steps every 12 frames, or every n frames once only n < 12 aliens are left.
// The game ends when an alien or an alien's bullet reaches the cannon, or an alien at the
// bottom row reaches a wall. A cleared wave is replaced by a fresh one; with ramping, each new
// wave steps one frame sooner, down to every 6 frames. No randomness: only sticky actions vary.
class SpaceInvaders final : public GameOfFields<SpaceInvaders> {
 public:
  // One bit per cell: bit x of rows[y] is (row y, column x).
  using Rows = std::array<std::uint16_t, kGridSize>;
  // Rows 0-3, columns 2-7.
  static constexpr Rows kFreshWave = {0xFC, 0xFC, 0xFC, 0xFC, 0, 0, 0, 0, 0, 0};
  static constexpr int kInitialAlienMoveInterval = 12;
  static constexpr int kMinAlienMoveInterval = 6;
  static constexpr int kAlienShotInterval = 10;

  // The whole game; a default State is the start of a game.
  struct State {
    int cannon_x = 5;
    Rows aliens = kFreshWave;
    Rows friendly_bullets{};
    Rows enemy_bullets{};
    int alien_dx = -1;  // the way the formation steps: +1 right, -1 left
    int alien_move_interval = kInitialAlienMoveInterval;
    // Timers count down one per frame and act on a frame that starts with them at 0.
    int alien_move_timer = kInitialAlienMoveInterval;  // the formation steps
    int alien_shot_timer = kAlienShotInterval;         // an alien fires
    int shot_timer = 0;                                // the player may fire
    bool terminal = false;

    template <class Fields>
    void state_fields(Fields& fields) {
      fields(cannon_x, aliens, friendly_bullets, enemy_bullets, alien_dx, alien_move_interval,
             alien_move_timer, alien_shot_timer, shot_timer, terminal);
    }
  };

  explicit SpaceInvaders(bool difficulty_ramping = true)
      : difficulty_ramping_(difficulty_ramping) {}

  const std::vector<std::string>& channel_names() const override;
  const std::vector<Action>& minimal_actions() const override;

  void reset(core::Rng& rng) override;
  double step(Action action, core::Rng& rng) override;
  bool terminal() const override { return state_.terminal; }
  void draw(const Grid& grid) const override;

  // For tests: the game's state, and setting it to play on from there.
  const State& state() const { return state_; }
  void set_state(const State& state) { state_ = state; }

 private:
  void apply_action(Action action);
  void advance_bullets();
  void advance_aliens();
  void alien_fires();
  int shoot_aliens();
  void replace_cleared_wave();
  std::uint16_t cannon_bit() const { return static_cast<std::uint16_t>(1u << state_.cannon_x); }

  bool difficulty_ramping_;
  State state_;

  friend struct core::StateFieldsAccess;
  template <class Fields>
  void state_fields(Fields& fields) {
    fields(core::must_match(difficulty_ramping_, "difficulty ramping"), state_);
  }
};

}  // namespace mnrl::envs::minatar
