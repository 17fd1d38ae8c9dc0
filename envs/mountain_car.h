#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "envs/classic_control_env.h"

namespace mnrl::envs {

// Gymnasium 0.29.1's MountainCarEnv, step for step: float64 state (position, velocity), the
// same update order and clipping (bit-identical results). Actions 0, 1, 2 push left, not at
// all, right. Reward -1 on every step including the terminating one; the episode terminates
// when the car reaches position 0.5 with velocity >= 0. Registered as "MountainCar-v0" (limit
// 200, threshold -110). Unlike Gymnasium, stepping after termination without reset() throws.
class MountainCar final : public ClassicControlEnv<2> {
 public:
  MountainCar() = default;

  const EnvSpec& spec() const override;
  // Position uniform in [-0.6, -0.4), velocity 0. The RNG starts from seed 0 until a seed is
  // given.
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
