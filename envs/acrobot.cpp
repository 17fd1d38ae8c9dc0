#include "envs/acrobot.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "envs/action_check.h"
#include "envs/classic_control_render.h"
#include "envs/registry.h"

namespace mnrl::envs {
namespace {

// Gymnasium's class constants, derived in the same order so every double is identical.
constexpr double kPi = 3.141592653589793;  // numpy.pi
constexpr double kDt = 0.2;
constexpr double kLinkLength1 = 1.0;
constexpr double kLinkMass1 = 1.0;
constexpr double kLinkMass2 = 1.0;
constexpr double kLinkComPos1 = 0.5;  // centre of mass of link 1
constexpr double kLinkComPos2 = 0.5;
constexpr double kLinkMoi = 1.0;  // moment of inertia of both links
constexpr double kGravity = 9.8;
constexpr double kMaxVel1 = 4 * kPi;
constexpr double kMaxVel2 = 9 * kPi;
constexpr double kTorques[3] = {-1.0, 0.0, 1.0};  // AVAIL_TORQUE

// NumPy evaluates `x**2` on a float64 scalar with libm's pow(), which differs from x * x in the
// last bit for about 1 in 1000 arguments. The volatile exponent stops the compiler from folding
// pow(x, 2.0) into x * x.
double square(double x) {
  static volatile double two = 2.0;
  return std::pow(x, two);
}

// Gymnasium's s_augmented: the state with the torque appended.
using Augmented = std::array<double, 5>;

// AcrobotEnv._dsdt with book_or_nips == "book": the time derivative of s_augmented (the torque
// component's is 0).
Augmented dsdt(const Augmented& s_augmented) {
  constexpr double m1 = kLinkMass1;
  constexpr double m2 = kLinkMass2;
  constexpr double l1 = kLinkLength1;
  constexpr double lc1 = kLinkComPos1;
  constexpr double lc2 = kLinkComPos2;
  constexpr double I1 = kLinkMoi;
  constexpr double I2 = kLinkMoi;
  constexpr double g = kGravity;
  const double a = s_augmented[4];
  const double theta1 = s_augmented[0];
  const double theta2 = s_augmented[1];
  const double dtheta1 = s_augmented[2];
  const double dtheta2 = s_augmented[3];
  const double cos_theta2 = std::cos(theta2);
  const double sin_theta2 = std::sin(theta2);
  // Python's `c**2` on the float constants is exact, so c * c there.
  const double d1 =
      m1 * (lc1 * lc1) + m2 * (l1 * l1 + lc2 * lc2 + 2 * l1 * lc2 * cos_theta2) + I1 + I2;
  const double d2 = m2 * (lc2 * lc2 + l1 * lc2 * cos_theta2) + I2;
  const double phi2 = m2 * lc2 * g * std::cos(theta1 + theta2 - kPi / 2.0);
  const double phi1 = -m2 * l1 * lc2 * square(dtheta2) * sin_theta2 -
                      2 * m2 * l1 * lc2 * dtheta2 * dtheta1 * sin_theta2 +
                      (m1 * lc1 + m2 * l1) * g * std::cos(theta1 - kPi / 2) + phi2;
  const double ddtheta2 =
      (a + d2 / d1 * phi1 - m2 * l1 * lc2 * square(dtheta1) * sin_theta2 - phi2) /
      (m2 * (lc2 * lc2) + I2 - square(d2) / d1);
  const double ddtheta1 = -(d2 * ddtheta2 + phi1) / d1;
  return {dtheta1, dtheta2, ddtheta1, ddtheta2, 0.0};
}

// Gymnasium's rk4(derivs, y0, [0, dt]): one classic Runge-Kutta step, elementwise in NumPy's
// order.
Augmented rk4(const Augmented& y0) {
  constexpr double dt = kDt - 0;  // t[1] - t[0]
  constexpr double dt2 = dt / 2.0;
  Augmented y{};
  const Augmented k1 = dsdt(y0);
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = y0[i] + dt2 * k1[i];
  const Augmented k2 = dsdt(y);
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = y0[i] + dt2 * k2[i];
  const Augmented k3 = dsdt(y);
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = y0[i] + dt * k3[i];
  const Augmented k4 = dsdt(y);
  constexpr double dt6 = dt / 6.0;
  Augmented out{};
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = y0[i] + dt6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }
  return out;
}

// Gymnasium's wrap(): shifts x by whole periods into [m, M].
double wrap(double x, double m, double M) {
  const double diff = M - m;
  while (x > M) x = x - diff;
  while (x < m) x = x + diff;
  return x;
}

// Gymnasium's bound(): min(max(x, m), M).
double bound(double x, double m, double M) {
  const double lower = m > x ? m : x;
  return M < lower ? M : lower;
}

EnvSpec make_spec() {
  // Gymnasium builds `high` as a float32 array: 4pi and 9pi round to float here too.
  const std::vector<float> high = {
      1.0f, 1.0f, 1.0f, 1.0f, static_cast<float>(kMaxVel1), static_cast<float>(kMaxVel2)};
  EnvSpec spec;
  spec.id = "Acrobot-v1";
  spec.observation_space = symmetric_box(high);
  spec.action_space = Discrete{3};
  spec.max_episode_steps = 500;
  spec.reward_threshold = -100.0;
  return spec;
}

}  // namespace

const EnvSpec& Acrobot::spec() const {
  static const EnvSpec spec = make_spec();
  return spec;
}

void Acrobot::reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) {
  if (seed) rng_.reseed(*seed);
  for (double& value : state_) value = static_cast<float>(rng_.uniform(-0.1, 0.1));
  phase_.start();
  write_observation(observation.floats());
}

bool Acrobot::render(RgbImage& image) const {
  render_acrobot(state_, image);
  return true;
}

StepResult Acrobot::step(const ActionRef& action, core::TypedPtr observation) {
  phase_.check_can_step(*this);
  if (static_cast<std::uint64_t>(action.index) > 2) check_action(spec(), action);  // throws

  const Augmented s_augmented = {state_[0], state_[1], state_[2], state_[3],
                                 kTorques[action.index]};
  const Augmented ns = rk4(s_augmented);
  state_[0] = wrap(ns[0], -kPi, kPi);
  state_[1] = wrap(ns[1], -kPi, kPi);
  state_[2] = bound(ns[2], -kMaxVel1, kMaxVel1);
  state_[3] = bound(ns[3], -kMaxVel2, kMaxVel2);

  const bool terminated = -std::cos(state_[0]) - std::cos(state_[1] + state_[0]) > 1.0;
  phase_.finish_step(terminated);
  write_observation(observation.floats());
  return {terminated ? 0.0 : -1.0, terminated, false};
}

void Acrobot::write_observation(float* observation) const {
  observation[0] = static_cast<float>(std::cos(state_[0]));
  observation[1] = static_cast<float>(std::sin(state_[0]));
  observation[2] = static_cast<float>(std::cos(state_[1]));
  observation[3] = static_cast<float>(std::sin(state_[1]));
  observation[4] = static_cast<float>(state_[2]);
  observation[5] = static_cast<float>(state_[3]);
}

MNRL_REGISTER_ENV("Acrobot-v1", Acrobot);

}  // namespace mnrl::envs
