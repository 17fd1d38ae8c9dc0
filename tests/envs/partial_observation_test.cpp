// The partially observed envs recurrent policies are tested on: rl-zoo's velocity-masked ids
// (MaskVelocity) and flickering observations (Flicker).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/state_stream.h"
#include "envs/action_sampler.h"
#include "envs/env_checker.h"
#include "envs/flicker.h"
#include "envs/mask_velocity.h"
#include "envs/registry.h"

namespace mnrl::envs {
namespace {

struct MaskedEnv {
  const char* id;
  std::vector<std::size_t> velocity_indices;
};

// The masked env steps as its original does, action for action, with the velocities zeroed
// and the rest of each observation, the rewards, the episode ends and the spec unchanged.
TEST(MaskVelocityTest, RegisteredNoVelEnvsAreTheirOriginalsWithoutVelocities) {
  for (const MaskedEnv& masked : std::vector<MaskedEnv>{{"CartPole-v1", {1, 3}},
                                                        {"MountainCar-v0", {1}},
                                                        {"MountainCarContinuous-v0", {1}},
                                                        {"Pendulum-v1", {2}}}) {
    SCOPED_TRACE(masked.id);
    const std::string id = no_velocity_id(masked.id);
    auto original = Registry::global().make(masked.id);
    auto env = Registry::global().make(id);
    EXPECT_EQ(env->spec().id, id);
    EXPECT_EQ(env->spec().max_episode_steps, original->spec().max_episode_steps);
    EXPECT_EQ(std::get<Box>(env->spec().observation_space).low,
              std::get<Box>(original->spec().observation_space).low);

    const std::size_t size = std::get<Box>(env->spec().observation_space).low.size();
    std::vector<float> seen(size), full(size);
    env->reset(seen.data(), 11);
    original->reset(full.data(), 11);
    ActionSampler sampler(env->spec().action_space);
    core::Rng rng(5);
    int velocities_nonzero = 0;
    for (int t = 0; t < 600; ++t) {
      for (std::size_t i = 0; i < size; ++i) {
        const bool velocity =
            std::find(masked.velocity_indices.begin(), masked.velocity_indices.end(), i) !=
            masked.velocity_indices.end();
        EXPECT_EQ(seen[i], velocity ? 0.0f : full[i]) << "entry " << i << " at step " << t;
        velocities_nonzero += velocity && full[i] != 0.0f;
      }
      const ActionRef action = sampler.sample(rng);
      const StepResult masked_step = env->step(action, seen.data());
      const StepResult full_step = original->step(action, full.data());
      ASSERT_EQ(masked_step.reward, full_step.reward);
      ASSERT_EQ(masked_step.terminated, full_step.terminated);
      ASSERT_EQ(masked_step.truncated, full_step.truncated);
      if (full_step.terminated || full_step.truncated) {
        env->reset(seen.data(), std::nullopt);
        original->reset(full.data(), std::nullopt);
      }
    }
    EXPECT_GT(velocities_nonzero, 100);  // there were velocities to hide
  }
}

TEST(MaskVelocityTest, NamesFollowRlZooAndBadIndicesAreRefused) {
  EXPECT_EQ(no_velocity_id("CartPole-v1"), "CartPoleNoVel-v1");
  EXPECT_EQ(no_velocity_id("LunarLanderContinuous-v2"), "LunarLanderContinuousNoVel-v2");
  EXPECT_THROW(MaskVelocity(Registry::global().make("CartPole-v1"), "X-v0", {4}),
               std::invalid_argument);
  EXPECT_THROW(MaskVelocity(Registry::global().make("MinAtar/Breakout-v1"), "X-v0", {0}),
               std::invalid_argument);  // bytes, not float velocities
}

bool all_zero(const std::vector<std::uint8_t>& frame) {
  for (const std::uint8_t cell : frame) {
    if (cell != 0) return false;
  }
  return true;
}

// Observations are zeros with the given probability and otherwise the inner env's; the draws
// follow the reset seed.
TEST(FlickerTest, ObscuresObservationsAtTheGivenRate) {
  const std::size_t size = 4 * 10 * 10;
  for (const double probability : {0.0, 0.3, 1.0}) {
    SCOPED_TRACE(probability);
    Flicker env(Registry::global().make("MinAtar/Breakout-v1"), probability);
    auto inner = Registry::global().make("MinAtar/Breakout-v1");
    std::vector<std::uint8_t> seen(size), full(size);
    env.reset(seen.data(), 3);
    inner->reset(full.data(), 3);
    ActionSampler sampler(env.spec().action_space);
    core::Rng rng(9);
    int obscured = 0, steps = 0;
    for (; steps < 4000; ++steps) {
      if (all_zero(seen)) {
        ++obscured;
      } else {
        ASSERT_EQ(seen, full) << "step " << steps;
      }
      const ActionRef action = sampler.sample(rng);
      const StepResult step = env.step(action, seen.data());
      inner->step(action, full.data());
      if (step.terminated || step.truncated) {
        env.reset(seen.data(), std::nullopt);
        inner->reset(full.data(), std::nullopt);
      }
    }
    // Binomial(4000, 0.3): standard deviation 29; Breakout's own frames are never all zeros.
    EXPECT_NEAR(obscured, probability * steps, 150);
  }
}

// The checker's whole contract holds with the wrapper on, determinism and the saved state
// (the flicker generator resumes with the env) included.
TEST(FlickerTest, AFlickeringEnvPassesTheEnvChecker) {
  EnvCheckOptions options;
  options.steps = 2000;
  options.seed = 4;
  const EnvCheckReport report = check_env(
      [] { return std::make_unique<Flicker>(Registry::global().make("MinAtar/Breakout-v1"), 0.5); },
      options);
  for (const EnvCheckResult& result : report.results) {
    EXPECT_EQ(result.status, EnvCheckStatus::kPassed) << result.check << ": " << result.detail;
  }
  EXPECT_GE(report.results.size(), 8u);
}

TEST(FlickerTest, RefusesProbabilitiesOutsideZeroToOne) {
  EXPECT_THROW(Flicker(Registry::global().make("CartPole-v1"), 1.5), std::invalid_argument);
  EXPECT_THROW(Flicker(Registry::global().make("CartPole-v1"), -0.1), std::invalid_argument);
}

}  // namespace
}  // namespace mnrl::envs
