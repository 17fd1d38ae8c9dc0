// LunarLander-v2 and LunarLanderContinuous-v2 on Box2D, checked as a physicist would: free fall
// under the configured gravity, the main engine lifting, wind pushing, a hand-written
// controller that lands, the env checker, and state save/restore bit for bit.
#include "envs/box2d/lunar_lander.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "core/kwargs.h"
#include "core/rng.h"
#include "core/state_stream.h"
#include "envs/env_checker.h"
#include "envs/registry.h"
#include "registered_env_checks.h"

namespace mnrl::envs {
namespace {

using Observation = std::array<float, 8>;

// The vertical velocity entry is m/s times (half the viewport's height in metres) / FPS.
constexpr double kFps = 50;
constexpr double kVelocityYScale = (400.0 / 30 / 2) / kFps;

ActionRef discrete(std::int64_t index) { return ActionRef{index, nullptr, 0}; }

std::unique_ptr<Env> make(const std::string& id, const core::Kwargs& kwargs = {}) {
  return Registry::global().make(id, kwargs);
}

// A PD controller written for these tests: lean toward the pad and hold a height that falls
// with the distance to it; once a leg touches, only brake the descent.
struct LanderCommand {
  double hover;  // > 0: thrust up
  double turn;   // > 0: turn left (counter-clockwise)
};

LanderCommand steer(const Observation& s) {
  const double target_angle = std::clamp(0.5 * s[0] + 1.0 * s[2], -0.4, 0.4);
  const double target_height = 0.55 * std::abs(s[0]);
  double turn = 0.5 * (target_angle - s[4]) - 1.0 * s[5];
  double hover = 0.5 * (target_height - s[1]) - 0.5 * s[3];
  if (s[6] > 0 || s[7] > 0) {
    turn = 0.0;
    hover = -0.5 * s[3];
  }
  return {hover, turn};
}

std::int64_t steer_discrete(const Observation& s) {
  const LanderCommand c = steer(s);
  if (c.hover > std::abs(c.turn) && c.hover > 0.05) return 2;
  if (c.turn < -0.05) return 3;
  if (c.turn > 0.05) return 1;
  return 0;
}

std::array<float, 2> steer_continuous(const Observation& s) {
  const LanderCommand c = steer(s);
  return {static_cast<float>(std::clamp(20 * c.hover - 1, -1.0, 1.0)),
          static_cast<float>(std::clamp(-20 * c.turn, -1.0, 1.0))};
}

// One episode under the controller; returns its return.
double land(Env& env, std::uint64_t seed, bool continuous) {
  Observation s{};
  env.reset(s.data(), seed);
  double total = 0.0;
  for (int t = 0; t < 1000; ++t) {
    StepResult r;
    if (continuous) {
      const auto a = steer_continuous(s);
      r = env.step(ActionRef{0, a.data(), 2}, s.data());
    } else {
      r = env.step(discrete(steer_discrete(s)), s.data());
    }
    total += r.reward;
    if (r.terminated || r.truncated) break;
  }
  return total;
}

TEST(LunarLander, SpecsAreGymnasiums) {
  const auto lander = make("LunarLander-v2");
  EXPECT_EQ(lander->spec().action_space, Space(Discrete{4}));
  EXPECT_EQ(flat_size(lander->spec().observation_space), 8);
  EXPECT_EQ(lander->spec().max_episode_steps, 1000);
  EXPECT_EQ(lander->spec().reward_threshold, 200.0);
  const auto continuous = make("LunarLanderContinuous-v2");
  EXPECT_EQ(continuous->spec().action_space, Space(Box{{2}, {-1.0f, -1.0f}, {1.0f, 1.0f}}));
}

TEST(LunarLander, PassesTheEnvChecker) {
  test_envs::expect_checker_passes("LunarLander-v2", 3000);
  test_envs::expect_checker_passes("LunarLanderContinuous-v2", 3000);
}

// Without engines, lander and legs fall freely after the first step (which carries the random
// initial push): the legs' springs push the lander about, but their total momentum gains
// m g dt per step downwards and keeps its horizontal part, until a leg touches the ground.
TEST(LunarLander, FallsFreelyUnderTheConfiguredGravity) {
  for (double gravity : {-10.0, -4.0}) {
    core::Kwargs kwargs;
    kwargs.set("gravity", gravity);
    LunarLander env(LunarLanderOptions::from(kwargs, false));
    Observation s{};
    env.reset(s.data(), 3);
    std::array<double, 3> previous = env.momentum();
    int free_steps = 0;
    for (int t = 0; t < 200; ++t) {
      const StepResult r = env.step(discrete(0), s.data());
      if (r.terminated || s[6] > 0 || s[7] > 0) break;
      const std::array<double, 3> now = env.momentum();
      const double mass = now[2];
      EXPECT_NEAR(now[1] - previous[1], mass * gravity / kFps, 1e-4 * mass) << "step " << t;
      EXPECT_NEAR(now[0], previous[0], 1e-4 * mass) << "step " << t;
      previous = now;
      ++free_steps;
    }
    EXPECT_GT(free_steps, 20) << "gravity " << gravity;
  }
}

// The main engine's impulse (13 x 4/30 N s on average, on ~5 kg) beats gravity's 0.2 m/s per
// step: the lander climbs at about 0.15 m/s more each step.
TEST(LunarLander, MainEngineLifts) {
  auto env = make("LunarLander-v2");
  Observation start{}, s{};
  env->reset(start.data(), 5);
  for (int t = 0; t < 30; ++t) env->step(discrete(2), s.data());
  const double gain_per_step = (s[3] - start[3]) / kVelocityYScale / 30;
  EXPECT_GT(gain_per_step, 0.1);
  EXPECT_LT(gain_per_step, 0.2);
}

// The left engine (action 1) pushes the lander's top leftwards from the right: it turns
// counter-clockwise (positive angle), the right engine the other way.
TEST(LunarLander, SideEnginesTurnOppositeWays) {
  std::array<double, 2> turn{};
  for (int side : {0, 1}) {
    auto env = make("LunarLander-v2");
    Observation s{};
    env->reset(s.data(), 7);
    const double start = s[5];
    for (int t = 0; t < 10; ++t) env->step(discrete(side == 0 ? 1 : 3), s.data());
    turn[side] = s[5] - start;
  }
  EXPECT_GT(turn[0], 0.05);
  EXPECT_LT(turn[1], -0.05);
}

TEST(LunarLander, WindPushesAndIsPartOfTheEpisode) {
  core::Kwargs windy;
  windy.set("enable_wind", true);
  windy.set("wind_power", 20.0);
  auto calm_env = make("LunarLander-v2");
  auto windy_env = make("LunarLander-v2", windy);
  Observation calm{}, blown{};
  calm_env->reset(calm.data(), 11);
  windy_env->reset(blown.data(), 11);
  double largest_difference = 0;
  for (int t = 0; t < 40; ++t) {
    calm_env->step(discrete(0), calm.data());
    windy_env->step(discrete(0), blown.data());
    largest_difference = std::max(largest_difference, std::abs(double(calm[2]) - blown[2]));
  }
  EXPECT_GT(largest_difference, 0.01);
}

TEST(LunarLander, RefusesKwargsOutOfRange) {
  const std::vector<std::pair<std::string, double>> bad = {
      {"gravity", -12.0}, {"gravity", 0.0}, {"wind_power", 25.0}, {"turbulence_power", -1.0}};
  for (const auto& [key, value] : bad) {
    core::Kwargs kwargs("env.kwargs", "lander.yaml:4:3");
    kwargs.set(key, value, "lander.yaml:5:7");
    try {
      make("LunarLander-v2", kwargs);
      ADD_FAILURE() << key << " = " << value << " accepted";
    } catch (const core::KwargError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("lander.yaml:5:7"), std::string::npos) << e.what();
    }
  }
}

// The controller lands on most seeds: a crash or leaving the screen gives -100, a landing that
// comes to rest +100, and a return over 200 needs both the shaping and the rest.
TEST(LunarLander, HandWrittenControllerLands) {
  for (bool continuous : {false, true}) {
    auto env = make(continuous ? "LunarLanderContinuous-v2" : "LunarLander-v2");
    int landed = 0;
    std::string returns;
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
      const double total = land(*env, seed, continuous);
      landed += total > 200 ? 1 : 0;
      returns += " " + std::to_string(static_cast<int>(total));
    }
    EXPECT_GE(landed, 15) << (continuous ? "continuous" : "discrete") << " returns:" << returns;
    std::cout << (continuous ? "continuous" : "discrete") << " returns:" << returns << "\n";
  }
}

// A lander that lands comes to rest: Box2D puts it to sleep, the episode terminates with +100.
TEST(LunarLander, RestingLanderEndsTheEpisodeWithTheBonus) {
  auto env = make("LunarLander-v2");
  Observation s{};
  env->reset(s.data(), 0);
  StepResult last;
  for (int t = 0; t < 1000; ++t) {
    last = env->step(discrete(steer_discrete(s)), s.data());
    if (last.terminated || last.truncated) break;
  }
  ASSERT_TRUE(last.terminated);
  EXPECT_EQ(last.reward, 100.0);
  EXPECT_TRUE(s[6] > 0 && s[7] > 0);
}

// Saved mid-episode (in the wind, whose phase is part of the state) and loaded into a fresh
// env, the rest of the run is the same bits, including the episodes that follow.
TEST(LunarLander, SavedStateResumesBitForBit) {
  core::Kwargs windy;
  windy.set("enable_wind", true);
  test_envs::expect_resumes_bit_for_bit("LunarLander-v2", 21, 37, windy);
  test_envs::expect_resumes_bit_for_bit("LunarLanderContinuous-v2", 21, 37, windy);
}

TEST(LunarLander, RefusesACorruptSavedState) {
  LunarLander env;
  Observation s{};
  env.reset(s.data(), 1);
  env.step(discrete(2), s.data());
  core::StateWriter out;
  env.save_state(out);
  std::string bytes = out.bytes();
  // The recorded action (2, 0) sits before the RNG state (a count and 4 words) and the phase.
  const std::size_t action_at = bytes.size() - sizeof(EpisodePhase) - sizeof(core::Rng::State) -
                                sizeof(std::uint64_t) - 2 * sizeof(float);
  float recorded = 0;
  std::memcpy(&recorded, &bytes[action_at], sizeof(recorded));
  ASSERT_EQ(recorded, 2.0f);
  const float bad = 7.0f;
  std::memcpy(&bytes[action_at], &bad, sizeof(bad));
  LunarLander other;
  core::StateReader in(bytes, "corrupt.state");
  EXPECT_THROW(other.load_state(in), core::StateError);
}

}  // namespace
}  // namespace mnrl::envs
