#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "envs/classic_control_env.h"

namespace mnrl::envs {

// Gymnasium 0.29.1's CartPoleEnv, step for step: float64 state (x, x_dot, theta, theta_dot),
// Euler integration with the same operation order (bit-identical results), reward 1 on every
// step including the terminating one. Registered as "CartPole-v1" (limit 500, threshold 475).
// Unlike Gymnasium, stepping after termination without reset() throws instead of warning.
class CartPole final : public ClassicControlEnv<4> {
 public:
  CartPole() = default;

  const EnvSpec& spec() const override;
  // Initial state uniform in [-0.05, 0.05) per component. The RNG starts from seed 0 until a
  // seed is given.
  void reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) override;
  // Throws std::invalid_argument for an action other than 0 (push left) or 1 (push right), and
  // std::logic_error before reset() or after the episode terminated.
  StepResult step(const ActionRef& action, core::TypedPtr observation) override;

  // Gymnasium's rgb_array frame (envs/classic_control_render.h).
  bool render(RgbImage& image) const override;

 private:
  // Refreshes cos_theta_ and sin_theta_.
  void state_changed() override;
  void write_observation(float* observation) const;

  // cos and sin of state_[2], refreshed whenever theta changes: computing them at the end of a
  // step overlaps the library call with the step's divisions instead of chaining them.
  double cos_theta_ = 1.0;
  double sin_theta_ = 0.0;
};

}  // namespace mnrl::envs
