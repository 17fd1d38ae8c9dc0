// The built-in mnrl/InvertedDoublePendulum-v0 and mnrl/Reacher-v0: specs, the env checker,
// physics a physicist would check from the observations alone (kinematics of the tip and the
// fingertip, rewards recomputed, falling poles, the rail's end, a balancing and a reaching
// controller), reset distributions, state save/restore bit for bit, and kwargs out of range.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "core/kwargs.h"
#include "core/rng.h"
#include "core/state_stream.h"
#include "envs/env_checker.h"
#include "envs/registry.h"
#include "envs/saved_state.h"
#include "registered_env_checks.h"

namespace mnrl::envs {
namespace {

constexpr const char* kDoublePendulumId = "mnrl/InvertedDoublePendulum-v0";
constexpr const char* kReacherId = "mnrl/Reacher-v0";
constexpr double kTwoPi = 6.283185307179586;

// ---- InvertedDoublePendulum ----

// The model's geometry and the task's constants, as the env documents them.
constexpr double kPoleLength = 0.6;
constexpr double kUprightTipHeight = 2 * kPoleLength;
constexpr double kFallenTipHeight = 1.0;

// The observation: cart position, sin of both hinge angles, cos of both, qvel (cart, lower
// hinge, upper hinge) and qfrc_constraint likewise, the last two clipped into +-10.
struct PendulumObservation {
  explicit PendulumObservation(const std::array<float, 11>& o)
      : cart(o[0]),
        lower_angle(std::atan2(o[1], o[3])),
        upper_angle(std::atan2(o[2], o[4])),
        cart_speed(o[5]),
        lower_spin(o[6]),
        upper_spin(o[7]),
        rail_force(o[8]),
        hinge_forces{o[9], o[10]} {}
  // The tip's position from the angles (the upper angle is relative to the lower pole).
  double tip_x() const {
    return cart + kPoleLength * (std::sin(lower_angle) + std::sin(lower_angle + upper_angle));
  }
  double tip_height() const {
    return kPoleLength * (std::cos(lower_angle) + std::cos(lower_angle + upper_angle));
  }
  double cart, lower_angle, upper_angle, cart_speed, lower_spin, upper_spin, rail_force;
  std::array<double, 2> hinge_forces;
};

std::unique_ptr<Env> double_pendulum(const core::Kwargs& kwargs = {}) {
  return Registry::global().make(kDoublePendulumId, kwargs);
}

core::Kwargs noise_scale(double scale) {
  core::Kwargs kwargs;
  kwargs.set("reset_noise_scale", scale);
  return kwargs;
}

// Full-state feedback that balances both poles with the cart near `cart_goal`: discrete LQR
// gains for the model linearized about upright (5 RK4 substeps of 0.01 s per step, state
// [cart, lower angle, upper angle, their speeds], Q = diag(1, 10, 10, 0.1, 0.1, 0.1), R = 1),
// computed offline with mjd_transitionFD and a Riccati iteration.
float balancing_push(const PendulumObservation& o, double cart_goal = 0.0) {
  const std::array<double, 6> gains = {0.21, 1.8, 5.72, 0.31, 0.91, 0.84};
  const std::array<double, 6> state = {o.cart - cart_goal, o.lower_angle, o.upper_angle,
                                       o.cart_speed,       o.lower_spin,  o.upper_spin};
  double push = 0.0;
  for (int i = 0; i < 6; ++i) push -= gains[i] * state[i];
  return static_cast<float>(std::clamp(push, -1.0, 1.0));
}

TEST(InvertedDoublePendulum, SpecAndChecker) {
  const auto env = double_pendulum();
  EXPECT_EQ(env->spec().action_space, Space(Box{{1}, {-1.0f}, {1.0f}}));
  EXPECT_EQ(flat_size(env->spec().observation_space), 11);
  EXPECT_EQ(env->spec().max_episode_steps, 1000);
  EXPECT_EQ(env->spec().reward_threshold, 9100.0);
  test_envs::expect_checker_passes(kDoublePendulumId);
}

// Without reset noise the poles start exactly upright and at rest, an equilibrium: the tip
// stays at the target height, so every step pays the whole alive bonus and nothing else.
TEST(InvertedDoublePendulum, UprightAtRestStaysAndEarnsTheWholeBonus) {
  auto env = double_pendulum(noise_scale(0.0));
  std::array<float, 11> obs{};
  env->reset(obs.data(), 0);
  const std::array<float, 11> upright = {0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(obs, upright);
  EXPECT_DOUBLE_EQ(PendulumObservation(obs).tip_height(), kUprightTipHeight);
  const float nothing = 0.0f;
  double episode_return = 0.0;
  StepResult r;
  do {
    r = env->step(ActionRef{0, &nothing, 1}, obs.data());
    episode_return += r.reward;
  } while (!r.terminated && !r.truncated);
  EXPECT_TRUE(r.truncated);
  EXPECT_EQ(obs, upright);
  EXPECT_NEAR(episode_return, 10.0 * 1000, 1e-9);
}

// Left alone after a noisy reset, the poles fall and the episode ends on the step whose tip
// sinks to 1 m. Each step's reward is recomputed from the observation alone: alive bonus 10,
// minus 0.01 x_tip^2 + (y_tip - 1.2)^2, minus 1e-3 w1^2 + 5e-3 w2^2.
TEST(InvertedDoublePendulum, PolesLeftAloneFallAndRewardFollowsTheTip) {
  auto env = double_pendulum();
  std::array<float, 11> obs{};
  const float nothing = 0.0f;
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    env->reset(obs.data(), seed);
    // Both angles within +-0.1 rad: the tip at least 0.6 (cos 0.1 + cos 0.2) = 1.185 m high.
    EXPECT_NEAR(PendulumObservation(obs).tip_height(), kUprightTipHeight, 0.015) << "seed " << seed;
    int steps = 0;
    StepResult r;
    do {
      r = env->step(ActionRef{0, &nothing, 1}, obs.data());
      ++steps;
      const PendulumObservation o(obs);
      ASSERT_LT(std::max(std::abs(o.lower_spin), std::abs(o.upper_spin)), 10.0) << "clipped";
      const double expected_reward =
          10.0 - 0.01 * o.tip_x() * o.tip_x() -
          (o.tip_height() - kUprightTipHeight) * (o.tip_height() - kUprightTipHeight) -
          1e-3 * o.lower_spin * o.lower_spin - 5e-3 * o.upper_spin * o.upper_spin;
      EXPECT_NEAR(r.reward, expected_reward, 1e-5) << "seed " << seed << ", step " << steps;
      if (r.terminated) {
        EXPECT_LE(o.tip_height(), kFallenTipHeight + 1e-6) << "seed " << seed;
      } else {
        EXPECT_GT(o.tip_height(), kFallenTipHeight - 1e-6) << "seed " << seed << ", step " << steps;
      }
    } while (!r.terminated && steps < 1000);
    EXPECT_TRUE(r.terminated) << "seed " << seed;
    EXPECT_LT(steps, 25) << "seed " << seed;  // within 1.25 s
  }
}

// The motor can hold both poles up: the balancing controller keeps every episode going for
// the whole 1000 steps, above the reward threshold.
TEST(InvertedDoublePendulum, BalancingControllerHoldsThePolesUp) {
  auto env = double_pendulum();
  std::array<float, 11> obs{};
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    env->reset(obs.data(), seed);
    double episode_return = 0.0;
    StepResult r;
    do {
      const float push = balancing_push(PendulumObservation(obs));
      r = env->step(ActionRef{0, &push, 1}, obs.data());
      episode_return += r.reward;
    } while (!r.terminated && !r.truncated);
    EXPECT_TRUE(r.truncated) << "seed " << seed;
    EXPECT_GT(episode_return, 9100.0) << "seed " << seed;
  }
}

// Balancing toward a goal beyond the rail's end drives the cart into it. The end stops the
// cart at 1 m (a soft limit: a few mm at most past it) and the observed constraint force on
// the slider pushes back, clipped to -10; it is zero away from the end, and the free hinges
// never feel one.
TEST(InvertedDoublePendulum, RailEndStopsTheCart) {
  auto env = double_pendulum();
  std::array<float, 11> obs{};
  env->reset(obs.data(), 1);
  bool pushed_back = false;
  StepResult r;
  do {
    const float push = balancing_push(PendulumObservation(obs), 1.5);
    r = env->step(ActionRef{0, &push, 1}, obs.data());
    const PendulumObservation o(obs);
    EXPECT_LT(o.cart, 1.005);
    if (o.cart < 1.0) {
      EXPECT_EQ(o.rail_force, 0.0) << "cart at " << o.cart;
    }
    EXPECT_LE(o.rail_force, 0.0);
    pushed_back = pushed_back || o.rail_force == -10.0;
    EXPECT_EQ(o.hinge_forces, (std::array<double, 2>{0.0, 0.0}));
  } while (!r.terminated && !r.truncated);
  EXPECT_TRUE(pushed_back);
}

TEST(InvertedDoublePendulum, SavedStateResumesBitForBit) {
  test_envs::expect_resumes_bit_for_bit(kDoublePendulumId, 9);
}

TEST(InvertedDoublePendulum, RefusesANoiseScaleOutOfRange) {
  core::Kwargs kwargs("env.kwargs", "p.yaml:3:3");
  kwargs.set("reset_noise_scale", 0.5, "p.yaml:4:22");
  try {
    double_pendulum(kwargs);
    FAIL() << "accepted";
  } catch (const core::KwargError& e) {
    EXPECT_NE(std::string(e.what()).find("reset_noise_scale"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("p.yaml:4:22"), std::string::npos) << e.what();
  }
}

// ---- Reacher ----

constexpr double kUpperArm = 0.12;
constexpr double kForearm = 0.1;
constexpr double kTargetRadius = 0.2;

// The observation: cos and sin of both arm angles, the target's x and y, the arm's speeds and
// the fingertip-target vector (x, y).
struct ReacherObservation {
  explicit ReacherObservation(const std::array<float, 10>& o)
      : shoulder(std::atan2(o[2], o[0])),
        elbow(std::atan2(o[3], o[1])),
        target_x(o[4]),
        target_y(o[5]),
        shoulder_speed(o[6]),
        elbow_speed(o[7]),
        offset_x(o[8]),
        offset_y(o[9]) {}
  // The fingertip from the angles (the elbow's is relative to the upper arm).
  double fingertip_x() const {
    return kUpperArm * std::cos(shoulder) + kForearm * std::cos(shoulder + elbow);
  }
  double fingertip_y() const {
    return kUpperArm * std::sin(shoulder) + kForearm * std::sin(shoulder + elbow);
  }
  double distance() const { return std::hypot(offset_x, offset_y); }
  double shoulder, elbow, target_x, target_y, shoulder_speed, elbow_speed, offset_x, offset_y;
};

std::unique_ptr<Env> reacher() { return Registry::global().make(kReacherId); }

TEST(Reacher, SpecAndChecker) {
  const auto env = reacher();
  EXPECT_EQ(env->spec().action_space, Space(Box{{2}, {-1.0f, -1.0f}, {1.0f, 1.0f}}));
  EXPECT_EQ(flat_size(env->spec().observation_space), 10);
  EXPECT_EQ(env->spec().max_episode_steps, 50);
  EXPECT_EQ(env->spec().reward_threshold, -3.75);
  test_envs::expect_checker_passes(kReacherId);
}

// Targets are uniform in the disc of radius 0.2 (a quarter of them inside radius 0.1, where a
// uniform radius would put half); the arm starts near straight along x, nearly at rest.
TEST(Reacher, ResetPlacesTheTargetUniformlyInTheDisc) {
  auto env = reacher();
  std::array<float, 10> obs{};
  const int resets = 2000;
  int inner = 0;
  double sum_x = 0.0, sum_y = 0.0, farthest = 0.0;
  for (int k = 0; k < resets; ++k) {
    env->reset(obs.data(), k);
    const ReacherObservation o(obs);
    const double radius = std::hypot(o.target_x, o.target_y);
    ASSERT_LT(radius, kTargetRadius) << "reset " << k;
    inner += radius < kTargetRadius / 2;
    sum_x += o.target_x;
    sum_y += o.target_y;
    farthest = std::max(farthest, radius);
    EXPECT_LE(std::abs(o.shoulder), 0.1 + 1e-6);
    EXPECT_LE(std::abs(o.elbow), 0.1 + 1e-6);
    EXPECT_LE(std::abs(o.shoulder_speed), 0.005);
    EXPECT_LE(std::abs(o.elbow_speed), 0.005);
  }
  EXPECT_NEAR(static_cast<double>(inner) / resets, 0.25, 0.04);
  EXPECT_NEAR(sum_x / resets, 0.0, 0.01);
  EXPECT_NEAR(sum_y / resets, 0.0, 0.01);
  EXPECT_GT(farthest, 0.19);
}

// Under random actions: the target never moves, the observed fingertip-target vector is the
// forward kinematics of the observed angles, and the reward is minus that vector's length
// minus the squared actions.
TEST(Reacher, RewardIsMinusDistanceMinusControlCost) {
  auto env = reacher();
  std::array<float, 10> obs{};
  core::Rng rng(3);
  for (std::uint64_t seed = 0; seed < 4; ++seed) {
    env->reset(obs.data(), seed);
    const float target_x = obs[4], target_y = obs[5];
    StepResult r;
    do {
      const std::array<float, 2> action = {static_cast<float>(rng.uniform(-1.0, 1.0)),
                                           static_cast<float>(rng.uniform(-1.0, 1.0))};
      r = env->step(ActionRef{0, action.data(), 2}, obs.data());
      ASSERT_FALSE(r.terminated);
      const ReacherObservation o(obs);
      EXPECT_EQ(obs[4], target_x);
      EXPECT_EQ(obs[5], target_y);
      EXPECT_NEAR(o.offset_x, o.fingertip_x() - o.target_x, 1e-6);
      EXPECT_NEAR(o.offset_y, o.fingertip_y() - o.target_y, 1e-6);
      const double control_cost = action[0] * action[0] + action[1] * action[1];
      EXPECT_NEAR(r.reward, -o.distance() - control_cost, 1e-6);
    } while (!r.truncated);
  }
}

// A proportional-derivative controller on the joint angles, toward the angles that put the
// fingertip on the target (inverse kinematics, elbow bent positively), brings the fingertip
// there within the episode's second.
TEST(Reacher, JointControllerDrivesTheFingertipToTheTarget) {
  auto env = reacher();
  std::array<float, 10> obs{};
  const double stiffness = 1.0, damping = 0.18;  // control per radian, per radian per second
  int reachable = 0;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    env->reset(obs.data(), seed);
    const ReacherObservation start(obs);
    const double radius = std::hypot(start.target_x, start.target_y);
    // Closer in than the folded arm reaches (0.03 m), the target is out of reach.
    if (radius < 0.05) continue;
    ++reachable;
    const double elbow_cos = (radius * radius - kUpperArm * kUpperArm - kForearm * kForearm) /
                             (2 * kUpperArm * kForearm);
    const double elbow_goal = std::acos(elbow_cos);
    const double shoulder_goal =
        std::atan2(start.target_y, start.target_x) -
        std::atan2(kForearm * std::sin(elbow_goal), kUpperArm + kForearm * std::cos(elbow_goal));
    double previous_distance = start.distance();
    StepResult r;
    int steps = 0;
    do {
      const ReacherObservation o(obs);
      const double shoulder_error = std::remainder(shoulder_goal - o.shoulder, kTwoPi);
      const std::array<float, 2> action = {
          static_cast<float>(
              std::clamp(stiffness * shoulder_error - damping * o.shoulder_speed, -1.0, 1.0)),
          static_cast<float>(
              std::clamp(stiffness * (elbow_goal - o.elbow) - damping * o.elbow_speed, -1.0, 1.0))};
      r = env->step(ActionRef{0, action.data(), 2}, obs.data());
      ++steps;
      // After the first few steps (the arm turning toward the target may swing the fingertip
      // away at first), the distance only shrinks: the controller does not overshoot.
      const double distance = ReacherObservation(obs).distance();
      if (steps > 5) {
        EXPECT_LE(distance, previous_distance) << "seed " << seed << ", step " << steps;
      }
      previous_distance = distance;
    } while (!r.truncated);
    EXPECT_LT(previous_distance, 0.005) << "seed " << seed;
    EXPECT_LT(previous_distance, start.distance() / 10) << "seed " << seed;
  }
  EXPECT_GE(reachable, 15);
}

TEST(Reacher, SavedStateResumesBitForBit) { test_envs::expect_resumes_bit_for_bit(kReacherId, 4); }

}  // namespace
}  // namespace mnrl::envs
