#include "envs/cartpole.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "envs/action_check.h"
#include "envs/classic_control_render.h"
#include "envs/registry.h"

namespace mnrl::envs {
namespace {

// Gymnasium's constants, derived in the same order so every double is identical.
constexpr double kGravity = 9.8;
constexpr double kMassCart = 1.0;
constexpr double kMassPole = 0.1;
constexpr double kTotalMass = kMassPole + kMassCart;
constexpr double kLength = 0.5;  // half the pole's length
constexpr double kPoleMassLength = kMassPole * kLength;
constexpr double kForceMag = 10.0;
constexpr double kTau = 0.02;  // seconds between state updates
constexpr double kPi = 3.141592653589793;
constexpr double kThetaThreshold = 12 * 2 * kPi / 360;
constexpr double kXThreshold = 2.4;

EnvSpec make_spec() {
  // Gymnasium builds `high` as a float32 array: the doubles round to float here too.
  constexpr float kFloatMax = std::numeric_limits<float>::max();
  const std::vector<float> high = {static_cast<float>(kXThreshold * 2), kFloatMax,
                                   static_cast<float>(kThetaThreshold * 2), kFloatMax};
  EnvSpec spec;
  spec.id = "CartPole-v1";
  spec.observation_space = symmetric_box(high);
  spec.action_space = Discrete{2};
  spec.max_episode_steps = 500;
  spec.reward_threshold = 475.0;
  return spec;
}

}  // namespace

const EnvSpec& CartPole::spec() const {
  static const EnvSpec spec = make_spec();
  return spec;
}

void CartPole::reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) {
  if (seed) rng_.reseed(*seed);
  for (double& value : state_) value = rng_.uniform(-0.05, 0.05);
  state_changed();
  phase_.start();
  write_observation(observation.floats());
}

bool CartPole::render(RgbImage& image) const {
  render_cartpole(state_, image);
  return true;
}

StepResult CartPole::step(const ActionRef& action, core::TypedPtr observation) {
  phase_.check_can_step(*this);
  if (static_cast<std::uint64_t>(action.index) > 1) check_action(spec(), action);  // throws

  // The formulas and their evaluation order are Gymnasium's; do not simplify them.
  const double force = action.index == 1 ? kForceMag : -kForceMag;
  double& x = state_[0];
  double& x_dot = state_[1];
  double& theta = state_[2];
  double& theta_dot = state_[3];
  const double costheta = cos_theta_;
  const double sintheta = sin_theta_;
  const double temp = (force + kPoleMassLength * (theta_dot * theta_dot) * sintheta) / kTotalMass;
  const double thetaacc = (kGravity * sintheta - costheta * temp) /
                          (kLength * (4.0 / 3.0 - kMassPole * (costheta * costheta) / kTotalMass));
  const double xacc = temp - kPoleMassLength * thetaacc * costheta / kTotalMass;
  x = x + kTau * x_dot;
  x_dot = x_dot + kTau * xacc;
  theta = theta + kTau * theta_dot;
  theta_dot = theta_dot + kTau * thetaacc;
  state_changed();

  // Non-short-circuit ors: no data-dependent branches in the hot path.
  const bool terminated = (x < -kXThreshold) | (x > kXThreshold) | (theta < -kThetaThreshold) |
                          (theta > kThetaThreshold);
  phase_.finish_step(terminated);
  write_observation(observation.floats());
  return {1.0, terminated, false};
}

void CartPole::state_changed() {
  // Same-argument std::cos and std::sin: GCC fuses them into one sincos call.
  cos_theta_ = std::cos(state_[2]);
  sin_theta_ = std::sin(state_[2]);
}

void CartPole::write_observation(float* observation) const {
  for (std::size_t i = 0; i < 4; ++i) observation[i] = static_cast<float>(state_[i]);
}

MNRL_REGISTER_ENV("CartPole-v1", CartPole);

}  // namespace mnrl::envs
