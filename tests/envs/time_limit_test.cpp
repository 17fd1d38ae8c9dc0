#include "envs/time_limit.h"

#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <stdexcept>
#include <string>

#include "envs/cartpole.h"
#include "envs/registry.h"
#include "scripted_env.h"

namespace mnrl::envs {
namespace {

// Keeps the pole up: push toward the side the pole is falling to.
std::int64_t balance(const std::array<float, 4>& obs) { return obs[2] + obs[3] > 0 ? 1 : 0; }

TEST(TimeLimitTest, MakeAppliesTheRegisteredLimit) {
  const auto env = Registry::global().make("CartPole-v1");
  ASSERT_NE(dynamic_cast<const TimeLimit*>(env.get()), nullptr);
  EXPECT_EQ(env->spec().max_episode_steps, 500);
  EXPECT_EQ(Registry::global().make("CartPole-v1", {}, 5)->spec().max_episode_steps, 5);
}

TEST(TimeLimitTest, BalancedCartPoleIsTruncatedAtExactly500Steps) {
  const auto env = Registry::global().make("CartPole-v1");
  std::array<float, 4> obs{};
  for (std::uint64_t seed = 0; seed < 3; ++seed) {
    env->reset(obs.data(), seed);
    double episode_return = 0.0;
    for (int t = 1; t <= 500; ++t) {
      const StepResult result = env->step(ActionRef{balance(obs), nullptr}, obs.data());
      episode_return += result.reward;
      ASSERT_FALSE(result.terminated) << "the controller dropped the pole at step " << t;
      ASSERT_EQ(result.truncated, t == 500) << "step " << t;
    }
    EXPECT_EQ(episode_return, 500.0);
  }
}

TEST(TimeLimitTest, TruncatesAfterTheLimitAndResetRestartsTheCount) {
  TimeLimit env(std::make_unique<test_envs::ScriptedEnv>(), 3);
  std::array<float, 3> obs{};
  for (int episode = 0; episode < 2; ++episode) {
    env.reset(obs.data(), std::nullopt);
    EXPECT_EQ(env.elapsed_steps(), 0);
    EXPECT_FALSE(env.step(ActionRef{}, obs.data()).truncated);
    EXPECT_FALSE(env.step(ActionRef{}, obs.data()).truncated);
    const StepResult last = env.step(ActionRef{}, obs.data());
    EXPECT_TRUE(last.truncated);
    EXPECT_FALSE(last.terminated);
    EXPECT_EQ(last.reward, 1.5);  // rewards pass through
  }
}

TEST(TimeLimitTest, TerminationBeforeTheLimitIsNotTruncation) {
  TimeLimit env(std::make_unique<test_envs::ScriptedEnv>(2), 5);
  std::array<float, 3> obs{};
  env.reset(obs.data(), std::nullopt);
  env.step(ActionRef{}, obs.data());
  const StepResult result = env.step(ActionRef{}, obs.data());
  EXPECT_TRUE(result.terminated);
  EXPECT_FALSE(result.truncated);
}

TEST(TimeLimitTest, TerminationOnTheLastStepIsAlsoTruncation) {
  // As gymnasium's TimeLimit: both flags are set when the episode ends on the limit.
  TimeLimit env(std::make_unique<test_envs::ScriptedEnv>(2), 2);
  std::array<float, 3> obs{};
  env.reset(obs.data(), std::nullopt);
  env.step(ActionRef{}, obs.data());
  const StepResult result = env.step(ActionRef{}, obs.data());
  EXPECT_TRUE(result.terminated);
  EXPECT_TRUE(result.truncated);
}

TEST(TimeLimitTest, SpecIsTheInnerSpecWithTheLimit) {
  TimeLimit env(std::make_unique<CartPole>(), 7);
  EXPECT_EQ(env.spec().id, "CartPole-v1");
  EXPECT_EQ(env.spec().max_episode_steps, 7);
  EXPECT_EQ(env.spec().observation_space, CartPole().spec().observation_space);
  EXPECT_EQ(env.spec().reward_threshold, CartPole().spec().reward_threshold);
  EXPECT_EQ(env.inner().spec().max_episode_steps, 500);
}

TEST(TimeLimitTest, StepBeforeResetThrows) {
  TimeLimit env(std::make_unique<test_envs::ScriptedEnv>(), 3);
  std::array<float, 3> obs{};
  try {
    env.step(ActionRef{}, obs.data());
    FAIL() << "expected std::logic_error";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("before reset()"), std::string::npos) << e.what();
  }
}

TEST(TimeLimitTest, StepAfterTruncationThrowsUntilReset) {
  TimeLimit env(std::make_unique<test_envs::ScriptedEnv>(), 1);
  std::array<float, 3> obs{};
  env.reset(obs.data(), std::nullopt);
  EXPECT_TRUE(env.step(ActionRef{}, obs.data()).truncated);
  EXPECT_THROW(env.step(ActionRef{}, obs.data()), std::logic_error);
  env.reset(obs.data(), std::nullopt);
  EXPECT_NO_THROW(env.step(ActionRef{}, obs.data()));
}

TEST(TimeLimitTest, RejectsNullEnvAndNonPositiveLimit) {
  EXPECT_THROW(TimeLimit(nullptr, 5), std::invalid_argument);
  EXPECT_THROW(TimeLimit(std::make_unique<CartPole>(), 0), std::invalid_argument);
}

}  // namespace
}  // namespace mnrl::envs
