#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "core/state_fields.h"
#include "core/state_stream.h"

namespace mnrl::envs::minatar {

// The MinAtar games (Young & Tian 2019) play on a 10x10 grid.
inline constexpr int kGridSize = 10;
inline constexpr int kCellsPerChannel = kGridSize * kGridSize;

// MinAtar's full action set, in its order: the index is the action of a -v0 env.
enum class Action : std::uint8_t { noop = 0, left = 1, up = 2, right = 3, down = 4, fire = 5 };
inline constexpr int kNumActions = 6;

// Channel-first observation memory: `cells` holds num_channels() x 10 x 10 bytes, cell
// (channel c, row y, column x) at (c * 10 + y) * 10 + x, row 0 at the top of the screen.
class Grid {
 public:
  explicit Grid(std::uint8_t* cells) : cells_(cells) {}
  void set(int channel, int y, int x) const {
    cells_[(channel * kGridSize + y) * kGridSize + x] = 1;
  }

 private:
  std::uint8_t* cells_;
};

// One game's rules, without the parts every game shares (sticky actions, the action set, the
// observation buffer, rendering), which envs::minatar::MinAtarEnv adds. A game draws every
// random number from the Rng it is given, so its whole state is its own fields plus that Rng.
class Game {
 public:
  virtual ~Game() = default;

  // Names of the observation channels, in order ("paddle", "ball", ...).
  virtual const std::vector<std::string>& channel_names() const = 0;
  // The game's minimal action set (the actions of a -v1 env), in MinAtar's order.
  virtual const std::vector<Action>& minimal_actions() const = 0;

  // Starts a new game.
  virtual void reset(core::Rng& rng) = 0;
  // Advances one frame with `action` (any of the six: one the game does not use acts as
  // noop) and returns the reward of that frame. Must not be called once terminal().
  virtual double step(Action action, core::Rng& rng) = 0;
  virtual bool terminal() const = 0;

  // Marks the cells of every object; `grid` has been zeroed by the caller.
  virtual void draw(const Grid& grid) const = 0;

  // Every field that step() reads, for bit-exact resume.
  virtual void save_state(core::StateWriter& out) const = 0;
  virtual void load_state(core::StateReader& in) = 0;
};

// A game whose saved state is the field list of Derived::state_fields() (core/state_fields.h).
// A load reads into a copy first, so that a refused or truncated state leaves the game as it was.
template <class Derived>
class GameOfFields : public Game {
 public:
  void save_state(core::StateWriter& out) const final {
    core::save_fields(out, static_cast<const Derived&>(*this));
  }
  void load_state(core::StateReader& in) final {
    Derived loaded = static_cast<const Derived&>(*this);
    core::load_fields(in, loaded);
    static_cast<Derived&>(*this) = std::move(loaded);
  }
};

}  // namespace mnrl::envs::minatar
