#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "envs/classic_control_env.h"

namespace mnrl::envs {

// Gymnasium 0.29.1's AcrobotEnv with its default "book" dynamics, step for step: float64 state
// (theta1, theta2, dtheta1, dtheta2), one RK4 step over dt = 0.2 with Gymnasium's operation
// order (bit-identical results), angles wrapped to [-pi, pi], velocities bounded to 4pi / 9pi.
// Actions 0, 1, 2 apply torque -1, 0, +1. Reward -1 per step, 0 on the terminating step.
// Observation [cos theta1, sin theta1, cos theta2, sin theta2, dtheta1, dtheta2] as float32.
// Registered as "Acrobot-v1" (limit 500, threshold -100). Unlike Gymnasium, stepping after
// termination without reset() throws.
class Acrobot final : public ClassicControlEnv<4> {
 public:
  Acrobot() = default;

  const EnvSpec& spec() const override;
  // Each state component uniform in [-0.1, 0.1), then rounded to float32 as Gymnasium does
  // (.astype(np.float32)). The RNG starts from seed 0 until a seed is given.
  void reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) override;
  // Throws std::invalid_argument for an action outside {0, 1, 2}, and std::logic_error before
  // reset() or after the episode terminated.
  StepResult step(const ActionRef& action, core::TypedPtr observation) override;

  // Gymnasium's rgb_array frame (envs/classic_control_render.h).
  bool render(RgbImage& image) const override;

 private:
  void write_observation(float* observation) const;
};

}  // namespace mnrl::envs
