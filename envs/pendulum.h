#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "envs/classic_control_env.h"

namespace mnrl::envs {

// Gymnasium 0.29.1's PendulumEnv (g = 10), step for step: float64 state (theta, theta_dot),
// the same update order (bit-identical results). The action is one torque in [-2, 2] (values
// outside are clipped, as Gymnasium does, for the dynamics and the cost alike); reward
// -(angle_normalize(theta)^2 + 0.1 theta_dot^2 + 0.001 u^2). Never terminates. Observation
// [cos theta, sin theta, theta_dot] as float32. Registered as "Pendulum-v1" (limit 200, no
// reward threshold).
class Pendulum final : public ClassicControlEnv<2> {
 public:
  Pendulum() = default;

  const EnvSpec& spec() const override;
  // theta uniform in [-pi, pi), theta_dot uniform in [-1, 1). The RNG starts from seed 0 until a
  // seed is given.
  void reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) override;
  // Throws std::invalid_argument unless the action is one non-NaN value, and std::logic_error
  // before reset().
  StepResult step(const ActionRef& action, core::TypedPtr observation) override;

  // Gymnasium's rgb_array frame (envs/classic_control_render.h).
  bool render(RgbImage& image) const override;

 private:
  void write_observation(float* observation) const;

  // The clipped torque of the last step, for render() only (so not in the saved state: a
  // resumed episode draws no torque arrow until its next step).
  double last_torque_ = 0.0;
};

}  // namespace mnrl::envs
