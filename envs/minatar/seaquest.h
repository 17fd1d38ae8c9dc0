#pragma once

#include <string>
#include <vector>

#include "core/rng.h"
#include "core/state_stream.h"
#include "envs/minatar/minatar_game.h"

namespace mnrl::envs::minatar {

// MinAtar's Seaquest. The player's submarine (front and back cells) moves in rows 0-8 and fires
// horizontally; fish and enemy subs cross rows 1-8 from either side, subs firing bullets. +1 for
// each enemy shot. Divers crossing the screen are picked up on contact (at most 6 aboard).
// Oxygen (200) drains while submerged; surfacing to row 0 refills it and drops one diver, or
// with 6 aboard drops all of them and pays the remaining oxygen in tenths (0-10). The game ends
// on contact with a fish, sub or enemy bullet, when oxygen runs out, or on surfacing with no
// diver. With ramping, each surfacing speeds up enemy spawning and, every second time, enemy
// movement.
class Seaquest final : public GameOfFields<Seaquest> {
 public:
  static constexpr int kMaxOxygen = 200;
  static constexpr int kMaxDivers = 6;
  static constexpr int kInitialEnemySpawnInterval = 20;
  static constexpr int kDiverSpawnInterval = 30;
  static constexpr int kInitialEnemyMoveInterval = 5;

  // A bullet flies one cell per frame in direction dx (+1 right, -1 left).
  struct Bullet {
    int x;
    int y;
    int dx;
  };
  // A fish, enemy sub or diver. Like every timer here, move_timer and shot_timer count down one
  // per frame and act on a frame that starts with them at 0: the swimmer moves one cell in
  // direction dx, or fires (enemy subs only).
  struct Swimmer {
    int x;
    int y;
    int dx;
    int move_timer;
    int shot_timer;
  };
  // The whole game; a default State is the start of a game.
  struct State {
    int sub_x = 5;
    int sub_y = 0;
    int sub_dx = -1;  // the way the sub faces and fires
    int oxygen = kMaxOxygen;
    // Divers aboard. MinAtar's quirk, kept: a full rescue leaves -1, not 0, and surfacing below
    // 0 is allowed and takes one more, so the sub surfaces freely after a full rescue until the
    // divers it picks up bring the count back to 0.
    int divers_aboard = 0;
    // At row 0 since the last surfacing, so staying there does not surface again.
    bool surfaced = true;
    int shot_timer = 0;  // the player may fire
    std::vector<Bullet> friendly_bullets;
    std::vector<Bullet> enemy_bullets;
    std::vector<Swimmer> fish;
    std::vector<Swimmer> enemy_subs;
    std::vector<Swimmer> divers;
    int enemy_spawn_interval = kInitialEnemySpawnInterval;
    int enemy_spawn_timer = kInitialEnemySpawnInterval;  // an enemy spawns
    int diver_spawn_timer = kDiverSpawnInterval;         // a diver spawns
    int enemy_move_interval = kInitialEnemyMoveInterval;
    int ramp_index = 0;  // surfacings that ramped the difficulty
    bool terminal = false;

    template <class Fields>
    void state_fields(Fields& fields) {
      fields(sub_x, sub_y, sub_dx, oxygen, divers_aboard, surfaced, shot_timer,
             core::resizable(friendly_bullets), core::resizable(enemy_bullets),
             core::resizable(fish), core::resizable(enemy_subs), core::resizable(divers),
             enemy_spawn_interval, enemy_spawn_timer, diver_spawn_timer, enemy_move_interval,
             ramp_index, terminal);
    }
  };

  explicit Seaquest(bool difficulty_ramping = true) : difficulty_ramping_(difficulty_ramping) {}

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
  // What became of an enemy this frame.
  enum class Fate { stays, left_screen, shot };

  void spawn_enemy(core::Rng& rng);
  void spawn_diver(core::Rng& rng);
  void apply_action(Action action);
  int advance_friendly_bullets();
  void advance_divers();
  int advance_enemy_subs();
  void advance_enemy_bullets();
  int advance_fish();
  Fate advance_enemy(Swimmer& enemy);
  int breathe();
  int surface();
  bool at_sub(int x, int y) const { return x == state_.sub_x && y == state_.sub_y; }
  bool can_rescue(const Swimmer& diver) const {
    return at_sub(diver.x, diver.y) && state_.divers_aboard < kMaxDivers;
  }

  bool difficulty_ramping_;
  State state_;

  friend struct core::StateFieldsAccess;
  template <class Fields>
  void state_fields(Fields& fields) {
    fields(core::must_match(difficulty_ramping_, "difficulty ramping"), state_);
  }
};

}  // namespace mnrl::envs::minatar
