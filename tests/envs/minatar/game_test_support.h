#pragma once

// Checks every MinAtar game's tests share: reading back what a game draws, that it draws only
// inside its channels, and that a saved state resumes the game exactly.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "core/state_stream.h"
#include "envs/minatar/minatar_game.h"

namespace mnrl::envs::minatar::test_support {

using Cell = std::pair<int, int>;  // {y, x}

// What a game draws into `num_channels` zeroed channels, read back.
class DrawnGrid {
 public:
  DrawnGrid(const Game& game, int num_channels)
      : cells_(static_cast<std::size_t>(num_channels) * kCellsPerChannel) {
    game.draw(Grid(cells_.data()));
  }
  bool at(int channel, Cell cell) const {
    return cells_[(channel * kGridSize + cell.first) * kGridSize + cell.second] != 0;
  }
  // The cells set in `channel`, row by row.
  std::vector<Cell> cells_of(int channel) const {
    std::vector<Cell> cells;
    for (int y = 0; y < kGridSize; ++y) {
      for (int x = 0; x < kGridSize; ++x) {
        if (at(channel, {y, x})) cells.emplace_back(y, x);
      }
    }
    return cells;
  }
  int count(int channel) const { return static_cast<int>(cells_of(channel).size()); }
  // The one cell set in `channel`; {-1, -1} unless exactly one is.
  Cell only(int channel) const {
    const std::vector<Cell> cells = cells_of(channel);
    return cells.size() == 1 ? cells[0] : Cell{-1, -1};
  }
  const std::vector<std::uint8_t>& bytes() const { return cells_; }

 private:
  std::vector<std::uint8_t> cells_;
};

inline Action random_action(core::Rng& actions) {
  return static_cast<Action>(actions.below(kNumActions));
}

// Plays `frames` frames of random actions from `actions`, starting a new game after each one
// that ends.
inline void play_randomly(Game& game, core::Rng& rng, core::Rng& actions, int frames) {
  for (int t = 0; t < frames; ++t) {
    game.step(random_action(actions), rng);
    if (game.terminal()) game.reset(rng);
  }
}

// Saves `saved` and loads the state into `loaded`, which must read all of it.
inline void load_saved_state(const Game& saved, Game& loaded) {
  core::StateWriter out;
  saved.save_state(out);
  core::StateReader in(out.bytes(), "saved game state");
  loaded.load_state(in);
  in.expect_end();
}

// Draws `game` between guard bytes and fails unless it wrote only 0 or 1, and only inside its
// `num_channels` channels. `when` names the frame in a failure.
inline void expect_draw_within_channels(const Game& game, int num_channels,
                                        const std::string& when) {
  constexpr std::size_t kGuard = kCellsPerChannel;  // bytes on each side
  constexpr std::uint8_t kUntouched = 7;            // what the guard bytes hold
  const std::size_t channels = static_cast<std::size_t>(num_channels) * kCellsPerChannel;
  std::vector<std::uint8_t> buffer(kGuard + channels + kGuard, kUntouched);
  std::fill(buffer.begin() + kGuard, buffer.begin() + kGuard + channels, 0);
  game.draw(Grid(buffer.data() + kGuard));
  for (std::size_t i = 0; i < buffer.size(); ++i) {
    const bool in_channels = i >= kGuard && i < kGuard + channels;
    ASSERT_TRUE(in_channels ? buffer[i] <= 1 : buffer[i] == kUntouched)
        << "byte " << static_cast<long>(i) - static_cast<long>(kGuard) << " of the grid, " << when;
  }
}

// Plays `frames` frames of random actions from `actions` (which may be `rng` itself) from the
// reset `game`, starting a new game after each one that ends, and checks with
// expect_draw_within_channels() what it draws at the start, after every frame and after every
// new start.
inline void expect_draws_only_zeros_and_ones(Game& game, int num_channels, int frames,
                                             core::Rng& rng, core::Rng& actions) {
  expect_draw_within_channels(game, num_channels, "at the start");
  if (::testing::Test::HasFatalFailure()) return;
  for (int t = 1; t <= frames; ++t) {
    game.step(random_action(actions), rng);
    expect_draw_within_channels(game, num_channels, "frame " + std::to_string(t));
    if (::testing::Test::HasFatalFailure()) return;
    if (game.terminal()) {
      game.reset(rng);
      expect_draw_within_channels(game, num_channels, "new game after frame " + std::to_string(t));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// Loads the state of `game` into `loaded`, a fresh game of the same kind and settings, and
// plays both on for `frames` frames: the same random actions from `actions`, `game` with `rng`
// and `loaded` with a copy of it, each starting a new game after one ends. Every frame must
// give both the same reward, end and drawing (`num_channels` channels). `after_each_frame`, if
// given, runs after those checks (before any new start) for what a test also compares or
// counts; a fatal failure in it ends the replay.
inline void expect_loaded_state_replays(Game& game, Game& loaded, int num_channels, core::Rng& rng,
                                        core::Rng& actions, int frames,
                                        const std::function<void()>& after_each_frame = nullptr) {
  load_saved_state(game, loaded);
  core::Rng loaded_rng = rng;
  for (int t = 0; t < frames; ++t) {
    const Action action = random_action(actions);
    ASSERT_EQ(game.step(action, rng), loaded.step(action, loaded_rng)) << "step " << t;
    ASSERT_EQ(game.terminal(), loaded.terminal()) << "step " << t;
    ASSERT_EQ(DrawnGrid(game, num_channels).bytes(), DrawnGrid(loaded, num_channels).bytes())
        << "step " << t;
    if (after_each_frame) {
      SCOPED_TRACE("step " + std::to_string(t));
      after_each_frame();
      if (::testing::Test::HasFatalFailure()) return;
    }
    if (game.terminal()) {
      game.reset(rng);
      loaded.reset(loaded_rng);
    }
  }
}

// expect_loaded_state_replays() for the next 500 frames of 60 games played from copies of
// `start`, game i with Rng i and random actions from Rng 1000 + i, each saved after i % 20
// frames of random play (so that every field is saved at some point where it matters in the
// frames that follow) and loaded into a default-constructed GameType.
template <class GameType>
void expect_loaded_states_replay_from(const GameType& start, int num_channels) {
  for (int game_index = 0; game_index < 60; ++game_index) {
    SCOPED_TRACE("game " + std::to_string(game_index));
    GameType game = start;
    core::Rng rng(game_index);
    core::Rng actions(1000 + game_index);
    play_randomly(game, rng, actions, game_index % 20);
    GameType loaded;
    expect_loaded_state_replays(game, loaded, num_channels, rng, actions, 500);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Plays `game` from a new start with random actions from `actions` until it ends, and checks
// that `loaded`, a fresh game of the same kind and settings, loads that state as ended and
// draws it the same.
inline void expect_ended_game_loads_as_ended(Game& game, Game& loaded, int num_channels,
                                             core::Rng& rng, core::Rng& actions) {
  game.reset(rng);
  while (!game.terminal()) game.step(random_action(actions), rng);
  load_saved_state(game, loaded);
  EXPECT_TRUE(loaded.terminal());
  EXPECT_EQ(DrawnGrid(loaded, num_channels).bytes(), DrawnGrid(game, num_channels).bytes());
}

// Checks that `other` refuses the state of `saved`, a game of the same kind whose settings
// differ.
inline void expect_refuses_state_of(const Game& saved, Game& other) {
  core::StateWriter out;
  saved.save_state(out);
  core::StateReader in(out.bytes(), "saved game state");
  EXPECT_THROW(other.load_state(in), core::StateError);
}

}  // namespace mnrl::envs::minatar::test_support
