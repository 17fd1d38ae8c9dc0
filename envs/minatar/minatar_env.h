#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/kwargs.h"
#include "core/rng.h"
#include "core/state_fields.h"
#include "envs/env.h"
#include "envs/episode_phase.h"
#include "envs/minatar/minatar_game.h"
#include "envs/saved_state.h"

namespace mnrl::envs::minatar {

// A MinAtar game as MinAtar's own Gymnasium wrapper presents it: "MinAtar/<Game>-v0" takes the
// full set of six actions, "-v1" the game's minimal set. What every game shares lives here:
// - sticky actions: with probability sticky_action_prob (kwarg, default 0.1) the previous
//   action is taken again instead of the chosen one (the previous action is noop after reset);
// - difficulty ramping (kwarg difficulty_ramping, default true), passed to the game;
// - the observation: a uint8 Box [channels, 10, 10] of 0/1, channels first (MinAtar's own
//   state is [10, 10, channels]; channels first is what a convolution takes);
// - render(): each cell in the colour of its highest channel, 16 x 16 pixels a cell.
// The game ends when its rules say so (terminated); the spec's time limit of 10,000 steps
// (truncated) only bounds an agent that never loses.
class MinAtarEnv final : public Env, public StatefulEnv {
 public:
  using GameFactory = std::function<std::unique_ptr<Game>(bool difficulty_ramping)>;

  // `name` is the game's ("Breakout"); `minimal_actions` selects -v1.
  MinAtarEnv(const std::string& name, const GameFactory& make_game, bool minimal_actions,
             const core::Kwargs& kwargs);

  const EnvSpec& spec() const override { return spec_; }
  void reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) override;
  // Throws std::invalid_argument for an action outside the action space, std::logic_error before
  // reset() or after the game ended.
  StepResult step(const ActionRef& action, core::TypedPtr observation) override;
  bool render(RgbImage& image) const override;

  void save_state(core::StateWriter& out) const override { core::save_fields(out, *this); }
  void load_state(core::StateReader& in) override { core::load_fields(in, *this); }

  const Game& game() const { return *game_; }

 private:
  void write_observation(core::TypedPtr observation) const;

  EnvSpec spec_;
  std::unique_ptr<Game> game_;
  std::vector<Action> actions_;  // index in the action space -> MinAtar action
  double sticky_action_prob_;
  core::Rng rng_;  // sticky actions and the game's randomness
  Action last_action_ = Action::noop;
  EpisodePhase phase_;

  friend struct core::StateFieldsAccess;
  template <class Fields>
  void state_fields(Fields& fields) {
    fields(rng_, last_action_, phase_, game_);
  }
};

// Registers "MinAtar/<name>-v0" and "-v1" for a game.
void register_minatar_game(const std::string& name, const MinAtarEnv::GameFactory& make_game);

}  // namespace mnrl::envs::minatar
