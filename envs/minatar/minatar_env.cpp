#include "envs/minatar/minatar_env.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "envs/action_check.h"
#include "envs/registry.h"

namespace mnrl::envs::minatar {
namespace {

constexpr int kCellPixels = 16;
constexpr int kMaxEpisodeSteps = 10000;

// A distinct colour per channel, in channel order (ten cover Seaquest, the game with most).
constexpr std::array<std::array<std::uint8_t, 3>, 10> kChannelColours = {{{255, 214, 10},
                                                                          {230, 57, 70},
                                                                          {69, 123, 157},
                                                                          {168, 218, 220},
                                                                          {42, 157, 143},
                                                                          {244, 162, 97},
                                                                          {131, 56, 236},
                                                                          {255, 0, 110},
                                                                          {58, 134, 255},
                                                                          {6, 214, 160}}};
constexpr std::array<std::uint8_t, 3> kBackground = {20, 20, 30};

EnvSpec make_spec(const std::string& id, const Game& game, std::size_t num_actions) {
  const auto channels = static_cast<std::int64_t>(game.channel_names().size());
  const auto cells = static_cast<std::size_t>(channels * kCellsPerChannel);
  EnvSpec spec;
  spec.id = id;
  spec.observation_space = Box{{channels, kGridSize, kGridSize},
                               std::vector<float>(cells, 0.0f),
                               std::vector<float>(cells, 1.0f),
                               Dtype::uint8};
  spec.action_space = Discrete{static_cast<std::int64_t>(num_actions)};
  spec.max_episode_steps = kMaxEpisodeSteps;
  return spec;
}

std::vector<Action> all_actions() {
  std::vector<Action> actions;
  for (int a = 0; a < kNumActions; ++a) actions.push_back(static_cast<Action>(a));
  return actions;
}

}  // namespace

MinAtarEnv::MinAtarEnv(const std::string& name, const GameFactory& make_game, bool minimal_actions,
                       const core::Kwargs& kwargs)
    : game_(make_game(kwargs.get<bool>("difficulty_ramping", true))),
      sticky_action_prob_(kwargs.get<double>("sticky_action_prob", 0.1)) {
  if (!(sticky_action_prob_ >= 0.0 && sticky_action_prob_ <= 1.0)) {
    throw kwargs.error("sticky_action_prob", "must be in [0, 1]");
  }
  actions_ = minimal_actions ? game_->minimal_actions() : all_actions();
  spec_ = make_spec("MinAtar/" + name + (minimal_actions ? "-v1" : "-v0"), *game_, actions_.size());
}

void MinAtarEnv::reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) {
  if (seed) rng_.reseed(*seed);
  game_->reset(rng_);
  last_action_ = Action::noop;
  phase_.start();
  write_observation(observation);
}

StepResult MinAtarEnv::step(const ActionRef& action, core::TypedPtr observation) {
  phase_.check_can_step(*this);
  check_action(spec_, action);
  Action chosen = actions_[static_cast<std::size_t>(action.index)];
  if (rng_.uniform() < sticky_action_prob_) chosen = last_action_;
  last_action_ = chosen;
  const double reward = game_->step(chosen, rng_);
  const bool terminated = game_->terminal();
  phase_.finish_step(terminated);
  write_observation(observation);
  return {reward, terminated, false};
}

void MinAtarEnv::write_observation(core::TypedPtr observation) const {
  std::uint8_t* cells = observation.bytes();
  std::memset(cells, 0, game_->channel_names().size() * kCellsPerChannel);
  game_->draw(Grid(cells));
}

bool MinAtarEnv::render(RgbImage& image) const {
  const std::size_t channels = game_->channel_names().size();
  std::vector<std::uint8_t> cells(channels * kCellsPerChannel);
  game_->draw(Grid(cells.data()));
  image.resize(kGridSize * kCellPixels, kGridSize * kCellPixels);
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      const int cell = (y / kCellPixels) * kGridSize + x / kCellPixels;
      const bool grid_line = y % kCellPixels == 0 || x % kCellPixels == 0;
      std::array<std::uint8_t, 3> colour = kBackground;
      for (std::size_t c = 0; c < channels; ++c) {
        if (cells[c * kCellsPerChannel + static_cast<std::size_t>(cell)]) {
          colour = kChannelColours[c % kChannelColours.size()];
        }
      }
      if (grid_line && colour == kBackground) colour = {40, 40, 55};
      std::uint8_t* pixel = &image.pixels[(static_cast<std::size_t>(y) * image.width + x) * 3];
      std::copy(colour.begin(), colour.end(), pixel);
    }
  }
  return true;
}

void register_minatar_game(const std::string& name, const MinAtarEnv::GameFactory& make_game) {
  for (const bool minimal : {false, true}) {
    const std::string id = "MinAtar/" + name + (minimal ? "-v1" : "-v0");
    Registry::global().add(id, EnvFactory([name, make_game, minimal](const core::Kwargs& kwargs) {
                             return std::make_unique<MinAtarEnv>(name, make_game, minimal, kwargs);
                           }));
  }
}

}  // namespace mnrl::envs::minatar
