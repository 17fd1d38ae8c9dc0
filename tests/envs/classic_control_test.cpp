// Acrobot-v1, MountainCar-v0, MountainCarContinuous-v0 and Pendulum-v1 against transitions
// recorded from Gymnasium 0.29.1 (tests/data/*.csv), plus their specs, resets, action checks
// and clipping.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iostream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "envs/acrobot.h"
#include "envs/mountain_car.h"
#include "envs/mountain_car_continuous.h"
#include "envs/pendulum.h"
#include "envs/registry.h"
#include "reference_csv.h"

namespace mnrl::envs {
namespace {

using test_envs::ReferenceCsv;

constexpr double kPi = 3.141592653589793;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

ActionRef discrete(std::int64_t index) { return ActionRef{index, nullptr, 0}; }
ActionRef box(const float& value) { return ActionRef{0, &value, 1}; }

template <typename EnvT>
using StateOf = std::decay_t<decltype(std::declval<EnvT>().state())>;

struct ReferenceResult {
  std::size_t rows = 0;
  std::size_t exact_states = 0;   // next_state equal to the recorded doubles bit for bit
  std::size_t exact_rewards = 0;  // reward equal to the recorded double bit for bit
  double max_state_error = 0.0;   // largest |next_state - recorded| over all components
};

// For every row of `file`: set the recorded state, take the recorded action, and compare with
// what Gymnasium returned. next_state to 1e-9 relative (1e-12 absolute near zero), the float32
// observation exactly (the CSV prints each float32 in full, so casting the printed value back
// gives the float32 Gymnasium returned), reward to 1e-9, terminated exactly.
//
// Continuous actions: the recorder drew float64 actions and printed them, but Gymnasium's env
// received them as float32 (the action space's dtype); the rewards -0.1 * action^2 confirm it.
// So the action passed here is the printed value cast to float, which is also what mnrl's
// float action buffers hold.
template <typename EnvT>
ReferenceResult check_against_reference(const std::string& file) {
  const ReferenceCsv csv = ReferenceCsv::load(file);
  EnvT env;
  using State = StateOf<EnvT>;
  constexpr std::size_t kStateSize = std::tuple_size<State>::value;
  const auto obs_size = static_cast<std::size_t>(flat_size(env.spec().observation_space));
  const bool is_discrete_action = is_discrete(env.spec().action_space);
  EXPECT_EQ(csv.count("state"), kStateSize);
  EXPECT_EQ(csv.count("next_state"), kStateSize);
  EXPECT_EQ(csv.count("next_obs"), obs_size);
  EXPECT_EQ(csv.count("action"), 1u);

  ReferenceResult result;
  result.rows = csv.size();
  std::vector<float> obs(obs_size);
  for (std::size_t r = 0; r < csv.size(); ++r) {
    SCOPED_TRACE(file + " line " + std::to_string(r + 2));
    env.set_state(csv.get<kStateSize>(r, "state"));
    const double action = csv.get(r, "action0");
    const float value = static_cast<float>(action);
    const StepResult step = env.step(
        is_discrete_action ? discrete(static_cast<std::int64_t>(action)) : box(value), obs.data());

    const State expected = csv.get<kStateSize>(r, "next_state");
    bool exact = true;
    for (std::size_t i = 0; i < kStateSize; ++i) {
      EXPECT_NEAR(env.state()[i], expected[i], std::max(1e-9 * std::abs(expected[i]), 1e-12))
          << "state " << i;
      exact = exact && env.state()[i] == expected[i];
      result.max_state_error =
          std::max(result.max_state_error, std::abs(env.state()[i] - expected[i]));
    }
    result.exact_states += exact;
    for (std::size_t i = 0; i < obs_size; ++i) {
      EXPECT_EQ(obs[i], static_cast<float>(csv.get(r, "next_obs" + std::to_string(i))))
          << "observation " << i;
    }
    EXPECT_NEAR(step.reward, csv.get(r, "reward"), 1e-9);
    result.exact_rewards += step.reward == csv.get(r, "reward");
    EXPECT_EQ(step.terminated, csv.get(r, "terminated") != 0.0);
    EXPECT_FALSE(step.truncated);  // truncation is the TimeLimit wrapper's job
  }
  std::cout << "[ reference] " << file << ": " << result.rows
            << " rows, next_state bit-identical in " << result.exact_states
            << ", reward bit-identical in " << result.exact_rewards
            << ", largest next_state difference " << result.max_state_error << "\n";
  return result;
}

// Same formulas in the same order and the same libm (glibc) as the recordings: identical
// doubles, rewards included (NumPy's `x**2` is libm's pow(), which the envs call too).
void expect_bit_exact(const ReferenceResult& result, std::size_t min_rows) {
  EXPECT_GE(result.rows, min_rows);
#ifdef __GLIBC__
  EXPECT_EQ(result.exact_states, result.rows);
  EXPECT_EQ(result.exact_rewards, result.rows);
#endif
}

// Acrobot and Pendulum take sin and cos through NumPy (np.sin / np.cos on float64 scalars),
// which on the recording machine did not return glibc's results: some values differ by 1 or 2
// units in the last place (a 1-2 ulp change in sin(theta) reproduces every differing Pendulum
// row; NumPy builds can use SIMD float64 sin/cos, e.g. SVML on AVX-512, that are not correctly
// rounded). mnrl uses the C library's std::sin / std::cos, so next_state can differ from the
// recording in its last bits. Everything else is still exact: the float32 observations all
// match (checked above), and so do the rewards, which do not depend on those last bits.
void expect_exact_up_to_numpy_trig(const ReferenceResult& result, std::size_t min_rows) {
  EXPECT_GE(result.rows, min_rows);
  EXPECT_LE(result.max_state_error, 1e-14);  // a few ulps of values up to 9pi
#ifdef __GLIBC__
  EXPECT_EQ(result.exact_rewards, result.rows);
#endif
}

TEST(ClassicControlTest, AcrobotMatchesGymnasiumReference) {
  expect_exact_up_to_numpy_trig(check_against_reference<Acrobot>("Acrobot-v1.csv"), 2500);
}

TEST(ClassicControlTest, MountainCarMatchesGymnasiumReference) {
  expect_bit_exact(check_against_reference<MountainCar>("MountainCar-v0.csv"), 800);
}

TEST(ClassicControlTest, MountainCarContinuousMatchesGymnasiumReference) {
  expect_bit_exact(check_against_reference<MountainCarContinuous>("MountainCarContinuous-v0.csv"),
                   3996);
}

TEST(ClassicControlTest, PendulumMatchesGymnasiumReference) {
  expect_exact_up_to_numpy_trig(check_against_reference<Pendulum>("Pendulum-v1.csv"), 800);
}

// --- Specs -----------------------------------------------------------------------------------

void expect_spec(const std::string& id, const Space& observation_space, const Space& action_space,
                 int max_episode_steps, std::optional<double> reward_threshold) {
  SCOPED_TRACE(id);
  ASSERT_TRUE(Registry::global().contains(id));
  const auto env = Registry::global().make(id);  // wrapped in its TimeLimit
  const EnvSpec& spec = env->spec();
  EXPECT_EQ(spec.id, id);
  EXPECT_EQ(spec.observation_space, observation_space);
  EXPECT_EQ(spec.action_space, action_space);
  EXPECT_EQ(spec.max_episode_steps, max_episode_steps);
  EXPECT_EQ(spec.reward_threshold, reward_threshold);
  EXPECT_NO_THROW(spec.validate());
}

TEST(ClassicControlTest, SpecsMatchGymnasiumRegistration) {
  // Bounds are Gymnasium's float32 arrays: 4pi -> 12.566371f, 9pi -> 28.274334f.
  expect_spec("Acrobot-v1",
              Box{{6},
                  {-1.0f, -1.0f, -1.0f, -1.0f, -12.566371f, -28.274334f},
                  {1.0f, 1.0f, 1.0f, 1.0f, 12.566371f, 28.274334f}},
              Discrete{3}, 500, -100.0);
  const Box car_observations{{2}, {-1.2f, -0.07f}, {0.6f, 0.07f}};
  expect_spec("MountainCar-v0", car_observations, Discrete{3}, 200, -110.0);
  expect_spec("MountainCarContinuous-v0", car_observations, Box{{1}, {-1.0f}, {1.0f}}, 999, 90.0);
  expect_spec("Pendulum-v1", Box{{3}, {-1.0f, -1.0f, -8.0f}, {1.0f, 1.0f, 8.0f}},
              Box{{1}, {-2.0f}, {2.0f}}, 200, std::nullopt);
}

TEST(ClassicControlTest, TimeLimitFromRegistryTruncatesPendulum) {
  const auto env = Registry::global().make("Pendulum-v1");
  std::array<float, 3> obs{};
  env->reset(obs.data(), 0);
  const float torque = 0.5f;
  for (int t = 1; t <= 200; ++t) {
    const StepResult result = env->step(box(torque), obs.data());
    ASSERT_EQ(result.truncated, t == 200) << t;
    ASSERT_FALSE(result.terminated);
  }
}

// --- Resets ----------------------------------------------------------------------------------

template <typename EnvT>
std::vector<float> first_observation(std::uint64_t seed) {
  EnvT env;
  std::vector<float> obs(static_cast<std::size_t>(flat_size(env.spec().observation_space)));
  env.reset(obs.data(), seed);
  return obs;
}

template <typename EnvT>
void expect_seeded_resets_repeat() {
  EXPECT_EQ(first_observation<EnvT>(5), first_observation<EnvT>(5));
  EXPECT_NE(first_observation<EnvT>(5), first_observation<EnvT>(6));
  // An unseeded reset continues the stream.
  EnvT env;
  std::vector<float> a(static_cast<std::size_t>(flat_size(env.spec().observation_space)));
  std::vector<float> b(a.size());
  env.reset(a.data(), 5);
  env.reset(b.data(), std::nullopt);
  EXPECT_NE(a, b);
}

TEST(ClassicControlTest, SameSeedGivesSameFirstObservation) {
  expect_seeded_resets_repeat<Acrobot>();
  expect_seeded_resets_repeat<MountainCar>();
  expect_seeded_resets_repeat<MountainCarContinuous>();
  expect_seeded_resets_repeat<Pendulum>();
}

TEST(ClassicControlTest, AcrobotResetIsSmallAndRoundedToFloat32) {
  Acrobot env;
  std::array<float, 6> obs{};
  const double bound = 0.1f;  // Gymnasium rounds the draw from [-0.1, 0.1) to float32
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    env.reset(obs.data(), seed);
    for (const double value : env.state()) {
      EXPECT_LE(std::abs(value), bound);
      EXPECT_EQ(static_cast<double>(static_cast<float>(value)), value);
    }
    EXPECT_EQ(obs[0], static_cast<float>(std::cos(env.state()[0])));
    EXPECT_EQ(obs[1], static_cast<float>(std::sin(env.state()[0])));
    EXPECT_EQ(obs[2], static_cast<float>(std::cos(env.state()[1])));
    EXPECT_EQ(obs[3], static_cast<float>(std::sin(env.state()[1])));
    EXPECT_EQ(obs[4], static_cast<float>(env.state()[2]));
    EXPECT_EQ(obs[5], static_cast<float>(env.state()[3]));
  }
}

template <typename EnvT>
void expect_car_reset_range() {
  EnvT env;
  std::array<float, 2> obs{};
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    env.reset(obs.data(), seed);
    EXPECT_GE(env.state()[0], -0.6);
    EXPECT_LT(env.state()[0], -0.4);
    EXPECT_EQ(env.state()[1], 0.0);
    EXPECT_EQ(obs[0], static_cast<float>(env.state()[0]));
    EXPECT_EQ(obs[1], 0.0f);
  }
}

TEST(ClassicControlTest, MountainCarResetsInTheValley) {
  expect_car_reset_range<MountainCar>();
  expect_car_reset_range<MountainCarContinuous>();
}

TEST(ClassicControlTest, PendulumResetCoversTheCircle) {
  Pendulum env;
  std::array<float, 3> obs{};
  double min_theta = kPi;
  double max_theta = -kPi;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    env.reset(obs.data(), seed);
    const auto& [theta, theta_dot] = env.state();
    EXPECT_GE(theta, -kPi);
    EXPECT_LT(theta, kPi);
    EXPECT_GE(theta_dot, -1.0);
    EXPECT_LT(theta_dot, 1.0);
    min_theta = std::min(min_theta, theta);
    max_theta = std::max(max_theta, theta);
    EXPECT_EQ(obs[0], static_cast<float>(std::cos(theta)));
    EXPECT_EQ(obs[1], static_cast<float>(std::sin(theta)));
    EXPECT_EQ(obs[2], static_cast<float>(theta_dot));
  }
  EXPECT_LT(min_theta, -2.5);  // the whole circle, not [-1, 1]
  EXPECT_GT(max_theta, 2.5);
}

// --- Invalid actions and step order ----------------------------------------------------------

// Steps `env` with `action` and expects std::invalid_argument naming the env, with the state
// left as it was and the env still steppable.
template <typename EnvT>
void expect_rejected(EnvT& env, const ActionRef& action, const std::string& what) {
  SCOPED_TRACE(env.spec().id + ": " + what);
  const auto before = env.state();
  std::vector<float> obs(static_cast<std::size_t>(flat_size(env.spec().observation_space)), -7.0f);
  try {
    env.step(action, obs.data());
    ADD_FAILURE() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(env.spec().id + ": invalid action"), std::string::npos) << message;
  }
  EXPECT_EQ(env.state(), before);
}

template <typename EnvT>
void expect_discrete_checks() {
  EnvT env;
  std::vector<float> obs(static_cast<std::size_t>(flat_size(env.spec().observation_space)));
  env.reset(obs.data(), 0);
  expect_rejected(env, discrete(3), "index 3");
  expect_rejected(env, discrete(-1), "index -1");
  expect_rejected(env, discrete(std::numeric_limits<std::int64_t>::min()), "index min");
  EXPECT_NO_THROW(env.step(discrete(2), obs.data()));
}

template <typename EnvT>
void expect_box_checks() {
  EnvT env;
  std::vector<float> obs(static_cast<std::size_t>(flat_size(env.spec().observation_space)));
  env.reset(obs.data(), 0);
  const float nan = kNaN;
  const std::array<float, 2> two = {0.5f, 0.5f};
  expect_rejected(env, box(nan), "NaN");
  expect_rejected(env, ActionRef{0, two.data(), 2}, "two values");
  expect_rejected(env, ActionRef{0, two.data(), 0}, "no values");
  expect_rejected(env, ActionRef{0, nullptr, 1}, "null values");
  EXPECT_NO_THROW(env.step(box(two[0]), obs.data()));
}

TEST(ClassicControlTest, InvalidActionsThrowNamingTheEnvAndLeaveStateUnchanged) {
  expect_discrete_checks<Acrobot>();
  expect_discrete_checks<MountainCar>();
  expect_box_checks<MountainCarContinuous>();
  expect_box_checks<Pendulum>();
}

template <typename EnvT>
void expect_step_before_reset_throws(const ActionRef& action) {
  EnvT env;
  std::vector<float> obs(static_cast<std::size_t>(flat_size(env.spec().observation_space)));
  SCOPED_TRACE(env.spec().id);
  try {
    env.step(action, obs.data());
    ADD_FAILURE() << "expected std::logic_error";
  } catch (const std::logic_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(env.spec().id + ": step() called before reset()"), std::string::npos)
        << message;
  }
}

TEST(ClassicControlTest, StepBeforeResetThrows) {
  const float torque = 0.0f;
  expect_step_before_reset_throws<Acrobot>(discrete(1));
  expect_step_before_reset_throws<MountainCar>(discrete(1));
  expect_step_before_reset_throws<MountainCarContinuous>(box(torque));
  expect_step_before_reset_throws<Pendulum>(box(torque));
}

// Steps once more after a terminating step: std::logic_error, state kept; reset() recovers.
template <typename EnvT>
void expect_step_after_termination_throws(EnvT& env, const ActionRef& action) {
  SCOPED_TRACE(env.spec().id);
  std::vector<float> obs(static_cast<std::size_t>(flat_size(env.spec().observation_space)));
  const auto terminal = env.state();
  try {
    env.step(action, obs.data());
    ADD_FAILURE() << "expected std::logic_error";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("after the episode terminated"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(env.state(), terminal);
  env.reset(obs.data(), 0);
  EXPECT_NO_THROW(env.step(action, obs.data()));
}

// --- Termination, rewards and clipping -------------------------------------------------------

TEST(ClassicControlTest, AcrobotTerminatesWithRewardZeroAboveTheLine) {
  Acrobot env;
  std::array<float, 6> obs{};
  env.set_state({kPi, 0.0, 0.0, 0.0});  // both links straight up, at rest
  const StepResult result = env.step(discrete(1), obs.data());
  EXPECT_TRUE(result.terminated);
  EXPECT_EQ(result.reward, 0.0);
  expect_step_after_termination_throws(env, discrete(1));

  env.set_state({0.0, 0.0, 0.0, 0.0});  // hanging down: -1 per step
  const StepResult down = env.step(discrete(2), obs.data());
  EXPECT_FALSE(down.terminated);
  EXPECT_EQ(down.reward, -1.0);
}

TEST(ClassicControlTest, AcrobotWrapsAnglesAndBoundsVelocities) {
  Acrobot env;
  std::array<float, 6> obs{};
  env.set_state({3.1, -3.1, 12.5, -28.2});  // fast enough to cross +-pi and hit the bounds
  env.step(discrete(2), obs.data());
  const auto& s = env.state();
  EXPECT_GE(s[0], -kPi);
  EXPECT_LE(s[0], kPi);
  EXPECT_GE(s[1], -kPi);
  EXPECT_LE(s[1], kPi);
  EXPECT_LE(std::abs(s[2]), 4 * kPi);
  EXPECT_LE(std::abs(s[3]), 9 * kPi);
}

TEST(ClassicControlTest, MountainCarTerminatesAtTheFlagAndStopsAtTheLeftWall) {
  MountainCar env;
  std::array<float, 2> obs{};
  env.set_state({0.49, 0.02});
  const StepResult result = env.step(discrete(2), obs.data());
  EXPECT_TRUE(result.terminated);
  EXPECT_EQ(result.reward, -1.0);
  EXPECT_GE(env.state()[0], 0.5);
  expect_step_after_termination_throws(env, discrete(2));

  env.set_state({-1.19, -0.05});  // hits the wall: inelastic, velocity zeroed
  EXPECT_FALSE(env.step(discrete(0), obs.data()).terminated);
  EXPECT_EQ(env.state(), (std::array<double, 2>{-1.2, 0.0}));
}

TEST(ClassicControlTest, MountainCarContinuousGoalRewardAndUnclippedActionCost) {
  MountainCarContinuous env;
  std::array<float, 2> obs{};
  env.set_state({0.44, 0.05});
  const float push = 0.5f;
  const StepResult result = env.step(box(push), obs.data());
  EXPECT_TRUE(result.terminated);
  EXPECT_EQ(result.reward, 100.0 - 0.5 * 0.5 * 0.1);
  // The state is stored as float32, as Gymnasium's np.array(..., dtype=np.float32).
  for (const double value : env.state()) {
    EXPECT_EQ(static_cast<double>(static_cast<float>(value)), value);
  }
  expect_step_after_termination_throws(env, box(push));

  // Out of bounds: the dynamics use the clipped force, the cost the action as given.
  const std::array<double, 2> start = {-0.5, 0.01};
  const float big = 5.0f;
  const float max = 1.0f;
  env.set_state(start);
  const StepResult clipped = env.step(box(big), obs.data());
  const auto after_big = env.state();
  env.set_state(start);
  const StepResult at_max = env.step(box(max), obs.data());
  EXPECT_EQ(env.state(), after_big);
  EXPECT_EQ(clipped.reward, -(5.0 * 5.0) * 0.1);
  EXPECT_EQ(at_max.reward, -0.1);
  const float low = -1.5f;
  env.set_state(start);
  const StepResult below = env.step(box(low), obs.data());
  EXPECT_EQ(below.reward, -(1.5 * 1.5) * 0.1);
}

TEST(ClassicControlTest, PendulumClipsTorqueForDynamicsAndCost) {
  Pendulum env;
  std::array<float, 3> obs{};
  const std::array<double, 2> start = {0.3, -0.7};
  const auto step_with = [&](float torque) {
    env.set_state(start);
    const StepResult result = env.step(box(torque), obs.data());
    EXPECT_FALSE(result.terminated);
    return std::make_pair(env.state(), result.reward);
  };
  const auto at_max = step_with(2.0f);
  EXPECT_EQ(step_with(5.0f), at_max);
  EXPECT_EQ(step_with(kInf), at_max);
  EXPECT_EQ(step_with(-3.0f), step_with(-2.0f));
  EXPECT_NE(step_with(1.0f), at_max);
  // reward = -(theta^2 + 0.1 theta_dot^2 + 0.001 u^2) with u clipped to 2.
  EXPECT_NEAR(at_max.second, -(0.3 * 0.3 + 0.1 * 0.7 * 0.7 + 0.001 * 4.0), 1e-15);
}

TEST(ClassicControlTest, PendulumNeverTerminatesAndNormalizesTheAngleInTheCost) {
  Pendulum env;
  std::array<float, 3> obs{};
  const float zero = 0.0f;
  // theta = 2pi + 0.1 costs like 0.1; theta = -pi costs pi^2 (angle_normalize maps it to -pi).
  env.set_state({2 * kPi + 0.1, 0.0});
  EXPECT_NEAR(env.step(box(zero), obs.data()).reward, -0.01, 1e-12);
  env.set_state({-kPi, 0.0});
  EXPECT_NEAR(env.step(box(zero), obs.data()).reward, -kPi * kPi, 1e-12);
  env.set_state({-7.0, 0.0});  // Python's floor mod: (-7 + pi) % 2pi - pi = -7 + 2pi
  EXPECT_NEAR(env.step(box(zero), obs.data()).reward, -(-7.0 + 2 * kPi) * (-7.0 + 2 * kPi), 1e-12);

  env.reset(obs.data(), 3);
  for (int t = 0; t < 1000; ++t) {
    const float torque = t % 2 == 0 ? 2.0f : -2.0f;
    const StepResult result = env.step(box(torque), obs.data());
    ASSERT_FALSE(result.terminated);
    ASSERT_LE(std::abs(env.state()[1]), 8.0);
  }
}

}  // namespace
}  // namespace mnrl::envs
