#include "envs/cartpole.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference_csv.h"

namespace mnrl::envs {
namespace {

using State = std::array<double, 4>;

constexpr double kThetaThreshold = 12 * 2 * 3.141592653589793 / 360;

// One row of tests/data/CartPole-v1.csv: a transition of Gymnasium 0.29.1's CartPoleEnv under
// random actions. The state columns are float64 (x, x_dot, theta, theta_dot) before and after
// the step; next_obs is the float32 observation returned.
struct Transition {
  State state{};
  std::int64_t action = 0;
  double reward = 0.0;
  bool terminated = false;
  State next_state{};
  std::array<float, 4> next_obs{};
};

std::vector<Transition> load_reference() {
  const auto csv = test_envs::ReferenceCsv::load("CartPole-v1.csv");
  std::vector<Transition> rows;
  for (std::size_t r = 0; r < csv.size(); ++r) {
    Transition t;
    t.state = csv.get<4>(r, "state");
    t.next_state = csv.get<4>(r, "next_state");
    const auto next_obs = csv.get<4>(r, "next_obs");
    for (int i = 0; i < 4; ++i) t.next_obs[i] = static_cast<float>(next_obs[i]);
    t.action = static_cast<std::int64_t>(csv.get(r, "action0"));
    t.reward = csv.get(r, "reward");
    t.terminated = csv.get(r, "terminated") != 0.0;
    rows.push_back(t);
  }
  return rows;
}

// Steps `env` with a fixed action sequence from reset(seed) and returns the observations.
std::vector<float> rollout(CartPole& env, std::uint64_t seed, int steps) {
  std::vector<float> observations(4);
  env.reset(observations.data(), seed);
  for (int t = 0; t < steps; ++t) {
    std::array<float, 4> obs{};
    const StepResult result = env.step(ActionRef{t % 3 == 0 ? 1 : 0, nullptr}, obs.data());
    observations.insert(observations.end(), obs.begin(), obs.end());
    if (result.terminated) break;
  }
  return observations;
}

TEST(CartPoleTest, MatchesGymnasiumReferenceTransitions) {
  const auto rows = load_reference();
  ASSERT_GT(rows.size(), 400u);
  CartPole env;
  int exact_states = 0;
  int terminations = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const Transition& row = rows[r];
    SCOPED_TRACE("csv row " + std::to_string(r + 2));
    env.set_state(row.state);
    std::array<float, 4> obs{};
    const StepResult result = env.step(ActionRef{row.action, nullptr}, obs.data());
    bool exact = true;
    for (int i = 0; i < 4; ++i) {
      const double expected = row.next_state[i];
      EXPECT_NEAR(env.state()[i], expected, 1e-9 * std::max(1e-3, std::abs(expected))) << i;
      exact = exact && env.state()[i] == expected;
      // Within one float32 step of the reference observation.
      const float tolerance =
          std::nextafter(row.next_obs[i], std::numeric_limits<float>::infinity()) - row.next_obs[i];
      EXPECT_NEAR(obs[i], row.next_obs[i], tolerance) << i;
    }
    exact_states += exact;
    EXPECT_NEAR(result.reward, row.reward, 1e-9);
    EXPECT_EQ(result.terminated, row.terminated);
    EXPECT_FALSE(result.truncated);
    terminations += result.terminated;
  }
  EXPECT_GT(terminations, 0);
#ifdef __GLIBC__
  // Same formulas in the same order and the same libm as the recording: identical doubles.
  EXPECT_EQ(exact_states, static_cast<int>(rows.size()));
#endif
}

TEST(CartPoleTest, SpecMatchesGymnasiumRegistration) {
  const CartPole cartpole;  // the spec is the env's: a reference to a temporary's would dangle
  const EnvSpec& spec = cartpole.spec();
  EXPECT_EQ(spec.id, "CartPole-v1");
  EXPECT_EQ(spec.max_episode_steps, 500);
  ASSERT_TRUE(spec.reward_threshold.has_value());
  EXPECT_EQ(*spec.reward_threshold, 475.0);
  EXPECT_EQ(spec.action_space, Space{Discrete{2}});
  const float max = std::numeric_limits<float>::max();
  const Box expected{{4}, {-4.8f, -max, -0.41887903f, -max}, {4.8f, max, 0.41887903f, max}};
  EXPECT_EQ(spec.observation_space, Space{expected});
  EXPECT_NO_THROW(spec.validate());
}

TEST(CartPoleTest, ResetDrawsSmallInitialState) {
  CartPole env;
  std::array<float, 4> obs{};
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    env.reset(obs.data(), seed);
    for (int i = 0; i < 4; ++i) {
      EXPECT_GE(env.state()[i], -0.05);
      EXPECT_LE(env.state()[i], 0.05);
      EXPECT_EQ(obs[i], static_cast<float>(env.state()[i]));
    }
  }
}

TEST(CartPoleTest, SameSeedSameTrajectoryDifferentSeedDifferent) {
  CartPole a;
  CartPole b;
  EXPECT_EQ(rollout(a, 7, 30), rollout(b, 7, 30));
  EXPECT_NE(rollout(a, 7, 30), rollout(b, 8, 30));
  // Reseeding restarts the stream; an unseeded reset continues it.
  EXPECT_EQ(rollout(a, 3, 5), rollout(a, 3, 5));
  std::array<float, 4> obs1{};
  std::array<float, 4> obs2{};
  a.reset(obs1.data(), 3);
  a.reset(obs2.data(), std::nullopt);
  EXPECT_NE(obs1, obs2);
}

TEST(CartPoleTest, RewardIsOneUntilAndIncludingTermination) {
  CartPole env;
  std::array<float, 4> obs{};
  env.reset(obs.data(), 1);
  int steps = 0;
  StepResult result;
  do {
    result = env.step(ActionRef{1, nullptr}, obs.data());  // always push right: falls quickly
    EXPECT_EQ(result.reward, 1.0);
    EXPECT_FALSE(result.truncated);
    ++steps;
  } while (!result.terminated && steps < 1000);
  EXPECT_TRUE(result.terminated);
  EXPECT_LT(steps, 100);
  EXPECT_TRUE(std::abs(env.state()[0]) > 2.4 || std::abs(env.state()[2]) > kThetaThreshold);
}

TEST(CartPoleTest, TerminatesOnlyStrictlyPastThresholds) {
  CartPole env;
  std::array<float, 4> obs{};
  // At rest exactly on a threshold: the first step keeps x (or theta) unchanged, which is not
  // past it; the velocity it picks up carries the next step over.
  env.set_state({2.4, 0.0, 0.0, 0.0});
  EXPECT_FALSE(env.step(ActionRef{1, nullptr}, obs.data()).terminated);
  EXPECT_EQ(env.state()[0], 2.4);
  EXPECT_TRUE(env.step(ActionRef{1, nullptr}, obs.data()).terminated);

  env.set_state({0.0, 0.0, -kThetaThreshold, 0.0});
  EXPECT_FALSE(env.step(ActionRef{1, nullptr}, obs.data()).terminated);
  EXPECT_EQ(env.state()[2], -kThetaThreshold);
  EXPECT_TRUE(env.step(ActionRef{1, nullptr}, obs.data()).terminated);
}

TEST(CartPoleTest, StepBeforeResetThrows) {
  CartPole env;
  std::array<float, 4> obs{};
  try {
    env.step(ActionRef{0, nullptr}, obs.data());
    FAIL() << "expected std::logic_error";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("before reset()"), std::string::npos) << e.what();
  }
}

TEST(CartPoleTest, StepAfterTerminationThrowsUntilReset) {
  CartPole env;
  std::array<float, 4> obs{};
  env.set_state({0.0, 0.0, 0.3, 0.0});  // already past the angle threshold
  EXPECT_TRUE(env.step(ActionRef{0, nullptr}, obs.data()).terminated);
  const State terminal = env.state();
  try {
    env.step(ActionRef{0, nullptr}, obs.data());
    FAIL() << "expected std::logic_error";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("after the episode terminated"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(env.state(), terminal);
  env.reset(obs.data(), 0);
  EXPECT_NO_THROW(env.step(ActionRef{0, nullptr}, obs.data()));
}

TEST(CartPoleTest, InvalidActionThrowsNamingEnvAndValue) {
  CartPole env;
  std::array<float, 4> obs{};
  env.reset(obs.data(), 0);
  const State before = env.state();
  for (const std::int64_t bad : {std::int64_t{2}, std::int64_t{-1}}) {
    try {
      env.step(ActionRef{bad, nullptr}, obs.data());
      FAIL() << "expected std::invalid_argument for " << bad;
    } catch (const std::invalid_argument& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("CartPole-v1"), std::string::npos) << message;
      EXPECT_NE(message.find("invalid action: index " + std::to_string(bad)), std::string::npos)
          << message;
    }
  }
  EXPECT_EQ(env.state(), before);
}

}  // namespace
}  // namespace mnrl::envs
