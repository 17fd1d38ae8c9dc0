#pragma once

#include "core/kwargs.h"
#include "envs/env.h"

namespace mnrl::envs {

// The task of Gymnasium's v4 walkers (Hopper, Humanoid), read from their kwargs:
// reward = forward_reward_weight x forward velocity + healthy_reward (while healthy, and on the
// step that ends the episode when unhealthy steps end it) - ctrl_cost_weight x sum of squared
// controls;
// the episode ends when the walker is unhealthy, if terminate_when_unhealthy.
struct LocomotionTask {
  double forward_reward_weight;
  double ctrl_cost_weight;
  double healthy_reward;
  bool terminate_when_unhealthy;
  double healthy_z_low;  // the torso's height is healthy strictly between these
  double healthy_z_high;

  // Reads the kwargs of those names (`healthy_z_range` as [low, high]) over `defaults`.
  // Throws core::KwargError naming the key for a non-finite weight, a negative cost or reward,
  // or a healthy range that does not hold `standing_height` (the start must be healthy).
  static LocomotionTask read(const core::Kwargs& kwargs, const LocomotionTask& defaults,
                             double standing_height);

  // The step's reward and termination.
  StepResult outcome(double forward_velocity, double control_squared, bool healthy) const;
};

}  // namespace mnrl::envs
