#include "envs/mountain_car_continuous.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "envs/action_check.h"
#include "envs/classic_control_render.h"
#include "envs/registry.h"

namespace mnrl::envs {
namespace {

// Gymnasium's constants.
constexpr double kMinAction = -1.0;
constexpr double kMaxAction = 1.0;
constexpr double kMinPosition = -1.2;
constexpr double kMaxPosition = 0.6;
constexpr double kMaxSpeed = 0.07;
constexpr double kGoalPosition = 0.45;
constexpr double kGoalVelocity = 0.0;
constexpr double kPower = 0.0015;

EnvSpec make_spec() {
  // Gymnasium builds the bounds as float32 arrays.
  EnvSpec spec;
  spec.id = "MountainCarContinuous-v0";
  spec.observation_space = Box{{2},
                               {static_cast<float>(kMinPosition), static_cast<float>(-kMaxSpeed)},
                               {static_cast<float>(kMaxPosition), static_cast<float>(kMaxSpeed)}};
  spec.action_space = Box{{1}, {static_cast<float>(kMinAction)}, {static_cast<float>(kMaxAction)}};
  spec.max_episode_steps = 999;
  spec.reward_threshold = 90.0;
  return spec;
}

}  // namespace

const EnvSpec& MountainCarContinuous::spec() const {
  static const EnvSpec spec = make_spec();
  return spec;
}

void MountainCarContinuous::reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) {
  if (seed) rng_.reseed(*seed);
  state_ = {rng_.uniform(-0.6, -0.4), 0.0};
  phase_.start();
  write_observation(observation.floats());
}

bool MountainCarContinuous::render(RgbImage& image) const {
  render_mountain_car(state_[0], image, kGoalPosition);
  return true;
}

StepResult MountainCarContinuous::step(const ActionRef& action, core::TypedPtr observation) {
  phase_.check_can_step(*this);
  if (action.size != 1 || action.values == nullptr || std::isnan(action.values[0])) {
    check_action(spec(), action);  // throws
  }

  // Gymnasium's formulas and order. With NumPy 1.x's promotion rules every operation on these
  // scalars (float32 state and action, Python floats) runs in float64; only the final store
  // rounds to float32. The reference recording confirms this.
  const double a = action.values[0];
  double position = state_[0];
  double velocity = state_[1];
  // Python's min(max(a, lo), hi).
  const double lower = kMinAction > a ? kMinAction : a;
  const double force = kMaxAction < lower ? kMaxAction : lower;

  velocity = velocity + (force * kPower - 0.0025 * std::cos(3 * position));
  if (velocity > kMaxSpeed) velocity = kMaxSpeed;
  if (velocity < -kMaxSpeed) velocity = -kMaxSpeed;
  position = position + velocity;
  if (position > kMaxPosition) position = kMaxPosition;
  if (position < kMinPosition) position = kMinPosition;
  if (position == kMinPosition && velocity < 0) velocity = 0.0;

  // Decided on the float64 values, before the state is rounded to float32.
  const bool terminated = position >= kGoalPosition && velocity >= kGoalVelocity;
  // math.pow(action, 2) of a float32 value is exact, so a * a; the unclipped action, as in
  // Gymnasium.
  const double reward = (terminated ? 100.0 : 0.0) - a * a * 0.1;

  state_ = {static_cast<float>(position), static_cast<float>(velocity)};
  phase_.finish_step(terminated);
  write_observation(observation.floats());
  return {reward, terminated, false};
}

void MountainCarContinuous::write_observation(float* observation) const {
  observation[0] = static_cast<float>(state_[0]);
  observation[1] = static_cast<float>(state_[1]);
}

MNRL_REGISTER_ENV("MountainCarContinuous-v0", MountainCarContinuous);

}  // namespace mnrl::envs
