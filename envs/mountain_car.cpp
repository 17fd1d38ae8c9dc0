#include "envs/mountain_car.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "envs/action_check.h"
#include "envs/classic_control_render.h"
#include "envs/registry.h"

namespace mnrl::envs {
namespace {

// Gymnasium's constants.
constexpr double kMinPosition = -1.2;
constexpr double kMaxPosition = 0.6;
constexpr double kMaxSpeed = 0.07;
constexpr double kGoalPosition = 0.5;
constexpr double kGoalVelocity = 0.0;
constexpr double kForce = 0.001;
constexpr double kGravity = 0.0025;

EnvSpec make_spec() {
  // Gymnasium builds the bounds as float32 arrays.
  EnvSpec spec;
  spec.id = "MountainCar-v0";
  spec.observation_space = Box{{2},
                               {static_cast<float>(kMinPosition), static_cast<float>(-kMaxSpeed)},
                               {static_cast<float>(kMaxPosition), static_cast<float>(kMaxSpeed)}};
  spec.action_space = Discrete{3};
  spec.max_episode_steps = 200;
  spec.reward_threshold = -110.0;
  return spec;
}

}  // namespace

const EnvSpec& MountainCar::spec() const {
  static const EnvSpec spec = make_spec();
  return spec;
}

void MountainCar::reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) {
  if (seed) rng_.reseed(*seed);
  state_ = {rng_.uniform(-0.6, -0.4), 0.0};
  phase_.start();
  write_observation(observation.floats());
}

bool MountainCar::render(RgbImage& image) const {
  render_mountain_car(state_[0], image);
  return true;
}

StepResult MountainCar::step(const ActionRef& action, core::TypedPtr observation) {
  phase_.check_can_step(*this);
  if (static_cast<std::uint64_t>(action.index) > 2) check_action(spec(), action);  // throws

  // Gymnasium's formulas and order: `velocity += a + b` adds a + b to velocity.
  double& position = state_[0];
  double& velocity = state_[1];
  velocity = velocity + (static_cast<double>(action.index - 1) * kForce +
                         std::cos(3 * position) * (-kGravity));
  velocity = std::clamp(velocity, -kMaxSpeed, kMaxSpeed);
  position = position + velocity;
  position = std::clamp(position, kMinPosition, kMaxPosition);
  if (position == kMinPosition && velocity < 0) velocity = 0.0;

  const bool terminated = position >= kGoalPosition && velocity >= kGoalVelocity;
  phase_.finish_step(terminated);
  write_observation(observation.floats());
  return {-1.0, terminated, false};
}

void MountainCar::write_observation(float* observation) const {
  observation[0] = static_cast<float>(state_[0]);
  observation[1] = static_cast<float>(state_[1]);
}

MNRL_REGISTER_ENV("MountainCar-v0", MountainCar);

}  // namespace mnrl::envs
