#include "envs/pendulum.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "envs/action_check.h"
#include "envs/classic_control_render.h"
#include "envs/registry.h"

namespace mnrl::envs {
namespace {

// Gymnasium's constants (PendulumEnv defaults).
constexpr double kPi = 3.141592653589793;  // numpy.pi
constexpr double kMaxSpeed = 8;
constexpr double kMaxTorque = 2.0;
constexpr double kDt = 0.05;
constexpr double kG = 10.0;
constexpr double kM = 1.0;
constexpr double kL = 1.0;

// NumPy evaluates `x**2` on a float64 scalar with libm's pow(), which differs from x * x in the
// last bit for about 1 in 1000 arguments. The volatile exponent stops the compiler from folding
// pow(x, 2.0) into x * x.
double square(double x) {
  static volatile double two = 2.0;
  return std::pow(x, two);
}

// NumPy's float64 `a % b`: fmod, moved into the divisor's sign (Python's floor-mod semantics),
// and a zero result takes the divisor's sign.
double floor_mod(double a, double b) {
  double mod = std::fmod(a, b);
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) mod += b;
  } else {
    mod = std::copysign(0.0, b);
  }
  return mod;
}

// Gymnasium's angle_normalize(): x mapped into [-pi, pi).
double angle_normalize(double x) { return floor_mod(x + kPi, 2 * kPi) - kPi; }

EnvSpec make_spec() {
  // Gymnasium builds `high` as a float32 array.
  const std::vector<float> high = {1.0f, 1.0f, static_cast<float>(kMaxSpeed)};
  EnvSpec spec;
  spec.id = "Pendulum-v1";
  spec.observation_space = symmetric_box(high);
  spec.action_space = Box{{1}, {static_cast<float>(-kMaxTorque)}, {static_cast<float>(kMaxTorque)}};
  spec.max_episode_steps = 200;
  return spec;
}

}  // namespace

const EnvSpec& Pendulum::spec() const {
  static const EnvSpec spec = make_spec();
  return spec;
}

void Pendulum::reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) {
  if (seed) rng_.reseed(*seed);
  // np_random.uniform(low=-high, high=high) with high = [pi, 1.0], drawn in that order.
  const double theta = rng_.uniform(-kPi, kPi);
  const double theta_dot = rng_.uniform(-1.0, 1.0);
  state_ = {theta, theta_dot};
  last_torque_ = 0.0;
  phase_.start();
  write_observation(observation.floats());
}

bool Pendulum::render(RgbImage& image) const {
  render_pendulum(state_[0], last_torque_, image);
  return true;
}

StepResult Pendulum::step(const ActionRef& action, core::TypedPtr observation) {
  phase_.check_can_step(*this);
  if (action.size != 1 || action.values == nullptr || std::isnan(action.values[0])) {
    check_action(spec(), action);  // throws
  }

  // Gymnasium's formulas and order. NumPy 1.x promotes the float32 action to float64 in every
  // operation with the float64 state, so all arithmetic here is float64.
  const double th = state_[0];
  const double thdot = state_[1];
  const double u = std::clamp(static_cast<double>(action.values[0]), -kMaxTorque, kMaxTorque);
  const double costs = square(angle_normalize(th)) + 0.1 * square(thdot) + 0.001 * square(u);

  double newthdot = thdot + (3 * kG / (2 * kL) * std::sin(th) + 3.0 / (kM * (kL * kL)) * u) * kDt;
  newthdot = std::clamp(newthdot, -kMaxSpeed, kMaxSpeed);
  const double newth = th + newthdot * kDt;
  state_ = {newth, newthdot};
  last_torque_ = u;

  write_observation(observation.floats());
  return {-costs, false, false};
}

void Pendulum::write_observation(float* observation) const {
  observation[0] = static_cast<float>(std::cos(state_[0]));
  observation[1] = static_cast<float>(std::sin(state_[0]));
  observation[2] = static_cast<float>(state_[1]);
}

MNRL_REGISTER_ENV("Pendulum-v1", Pendulum);

}  // namespace mnrl::envs
