#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "envs/classic_control_env.h"

namespace mnrl::envs {

// Gymnasium 0.29.1's Continuous_MountainCarEnv, step for step (bit-identical results). The
// action is one force in [-1, 1] (values outside are clipped for the dynamics, as Gymnasium
// does); reward -0.1 * action^2 with the unclipped action, plus 100 on the step that reaches
// position 0.45 with velocity >= 0, which terminates the episode. Registered as
// "MountainCarContinuous-v0" (limit 999, threshold 90). Unlike Gymnasium, stepping after
// termination without reset() throws.
//
// Gymnasium keeps this env's state in a NumPy array: float64 after reset(), float32 after every
// step (each step computes in float64, then stores np.array([position, velocity], float32)).
// The state here is float64 holding exactly those values.
class MountainCarContinuous final : public ClassicControlEnv<2> {
 public:
  MountainCarContinuous() = default;

  const EnvSpec& spec() const override;
  // Position uniform in [-0.6, -0.4) (kept as float64, as Gymnasium does), velocity 0. The RNG
  // starts from seed 0 until a seed is given.
  void reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) override;
  // Throws std::invalid_argument unless the action is one non-NaN value, and std::logic_error
  // before reset() or after the episode terminated.
  StepResult step(const ActionRef& action, core::TypedPtr observation) override;

  // Gymnasium's rgb_array frame (envs/classic_control_render.h).
  bool render(RgbImage& image) const override;

 private:
  void write_observation(float* observation) const;
};

}  // namespace mnrl::envs
