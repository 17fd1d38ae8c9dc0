// The MinAtar games as envs: registration, spaces, sticky actions, rendering, the env checker,
// exact resume, and random-policy returns against the figures in docs/environments.md.
#include "envs/minatar/minatar_env.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/kwargs.h"
#include "envs/random_policy.h"
#include "envs/registry.h"
#include "registered_env_checks.h"

namespace mnrl::envs::minatar {
namespace {

struct GameFacts {
  const char* name;
  std::int64_t channels;
  std::int64_t minimal_actions;
  // Random play (envs::random_policy_returns: 1000 episodes on -v0, action seed 12345), as
  // docs/environments.md records it.
  double random_mean_return;
  double random_std_return;
};

constexpr GameFacts kGames[] = {
    {"Asterix", 4, 5, 0.480, 0.841},       {"Breakout", 4, 3, 0.491, 0.713},
    {"Freeway", 7, 3, 0.120, 0.343},       {"Seaquest", 10, 6, 0.114, 0.428},
    {"SpaceInvaders", 6, 4, 2.840, 2.270},
};

std::string id_of(const GameFacts& game, const char* version) {
  return std::string("MinAtar/") + game.name + "-" + version;
}

TEST(MinAtarEnvTest, EveryGameRegistersAFullAndAMinimalActionSetOverUint8Grids) {
  for (const GameFacts& game : kGames) {
    for (const char* version : {"v0", "v1"}) {
      const auto env = Registry::global().make(id_of(game, version));
      const EnvSpec& spec = env->spec();
      EXPECT_EQ(spec.id, id_of(game, version));
      const auto& box = std::get<Box>(spec.observation_space);
      EXPECT_EQ(box.dtype, Dtype::uint8) << spec.id;
      EXPECT_EQ(box.shape, (std::vector<std::int64_t>{game.channels, 10, 10})) << spec.id;
      EXPECT_EQ(box.high.front(), 1.0f);
      EXPECT_EQ(byte_scale(spec.observation_space), 1.0f) << "0/1 grids are not rescaled";
      const std::int64_t actions = std::string(version) == "v0" ? 6 : game.minimal_actions;
      EXPECT_EQ(spec.action_space, Space(Discrete{actions})) << spec.id;
      EXPECT_EQ(spec.max_episode_steps, 10000);
    }
  }
}

TEST(MinAtarEnvTest, EveryGamePassesTheEnvChecker) {
  for (const GameFacts& game : kGames) {
    test_envs::expect_checker_passes(id_of(game, "v0"), 3000);
    test_envs::expect_checker_passes(id_of(game, "v1"), 1000);
  }
}

TEST(MinAtarEnvTest, EveryGameResumesBitForBit) {
  for (const GameFacts& game : kGames) {
    test_envs::expect_resumes_bit_for_bit(id_of(game, "v0"), 7, 50, {}, 3000);
  }
}

// The paddle's column in Breakout's first channel.
int paddle_column(const core::TypedRows& observation) {
  const std::uint8_t* cells = observation.row(0).bytes();
  for (int x = 0; x < kGridSize; ++x) {
    if (cells[9 * kGridSize + x]) return x;
  }
  return -1;
}

TEST(MinAtarEnvTest, StickyActionsRepeatThePreviousActionWithTheirProbability) {
  // Breakout-v1's actions: 0 noop, 1 left, 2 right. The paddle starts in column 4.
  for (const double sticky : {0.0, 1.0}) {
    core::Kwargs kwargs;
    kwargs.set("sticky_action_prob", sticky);
    auto env = Registry::global().make("MinAtar/Breakout-v1", kwargs);
    core::TypedRows observation = test_envs::observation_for(*env);
    env->reset(observation.row(0), 3);
    ASSERT_EQ(paddle_column(observation), 4);
    env->step({1, nullptr, 0}, observation.row(0));
    // Never sticky, left moves the paddle; always sticky, the first action stays noop.
    EXPECT_EQ(paddle_column(observation), sticky == 0.0 ? 3 : 4) << "sticky " << sticky;
  }
  // At 0.1, about one step in ten repeats the previous action: here noop after right.
  auto env = Registry::global().make("MinAtar/Breakout-v1");
  core::TypedRows observation = test_envs::observation_for(*env);
  int repeated = 0, steps = 0;
  for (std::uint64_t seed = 0; seed < 2000; ++seed) {
    env->reset(observation.row(0), seed);
    env->step({2, nullptr, 0}, observation.row(0));  // right, taken unless sticky (noop)
    repeated += paddle_column(observation) == 4;
    ++steps;
  }
  EXPECT_NEAR(static_cast<double>(repeated) / steps, 0.1, 0.02);
}

TEST(MinAtarEnvTest, RefusesAStickyProbabilityOutsideZeroToOne) {
  core::Kwargs kwargs("env.kwargs", "");
  kwargs.set("sticky_action_prob", 1.5);
  try {
    Registry::global().make("MinAtar/Breakout-v0", kwargs);
    FAIL() << "no error";
  } catch (const core::KwargError& e) {
    EXPECT_NE(std::string(e.what()).find("sticky_action_prob: must be in [0, 1]"),
              std::string::npos)
        << e.what();
  }
}

TEST(MinAtarEnvTest, RendersEachCellInItsObjectsColour) {
  auto env = Registry::global().make("MinAtar/Breakout-v1");
  core::TypedRows observation = test_envs::observation_for(*env);
  env->reset(observation.row(0), 0);
  RgbImage image;
  ASSERT_TRUE(env->render(image));
  ASSERT_EQ(image.width, 160);
  ASSERT_EQ(image.height, 160);
  const auto pixel = [&](int cell_y, int cell_x) {
    const std::size_t at = ((cell_y * 16 + 8) * 160 + cell_x * 16 + 8) * 3;
    return std::vector<std::uint8_t>(image.pixels.begin() + at, image.pixels.begin() + at + 3);
  };
  const auto background = pixel(6, 0);  // nothing there at the start
  EXPECT_NE(pixel(9, 4), background) << "the paddle";
  EXPECT_NE(pixel(1, 0), background) << "a brick";
  EXPECT_NE(pixel(9, 4), pixel(1, 0)) << "paddle and brick in different colours";
  EXPECT_EQ(pixel(9, 0), background);
}

TEST(MinAtarEnvTest, RandomPlayScoresTheRecordedReturns) {
  for (const GameFacts& game : kGames) {
    auto env = Registry::global().make(id_of(game, "v0"));
    const RandomPolicyReturns r = random_policy_returns(*env, 1000, 12345);
    // Four standard errors of the recorded mean: a change to a game's rules that moves its
    // random return shows, the exact sequence of draws does not matter.
    const double tolerance = 4 * game.random_std_return / std::sqrt(1000.0) + 1e-9;
    EXPECT_NEAR(r.mean_return, game.random_mean_return, tolerance) << game.name;
  }
}

}  // namespace
}  // namespace mnrl::envs::minatar
