#include "envs/mujoco/locomotion_task.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace mnrl::envs {

LocomotionTask LocomotionTask::read(const core::Kwargs& kwargs, const LocomotionTask& defaults,
                                    double standing_height) {
  const double inf = std::numeric_limits<double>::infinity();
  LocomotionTask task = defaults;
  task.forward_reward_weight =
      kwargs.get<double>("forward_reward_weight", defaults.forward_reward_weight);
  task.ctrl_cost_weight = kwargs.get<double>("ctrl_cost_weight", defaults.ctrl_cost_weight);
  task.healthy_reward = kwargs.get<double>("healthy_reward", defaults.healthy_reward);
  task.terminate_when_unhealthy =
      kwargs.get<bool>("terminate_when_unhealthy", defaults.terminate_when_unhealthy);
  if (!std::isfinite(task.forward_reward_weight)) {
    throw kwargs.error("forward_reward_weight", "must be finite");
  }
  if (!(task.ctrl_cost_weight >= 0.0 && task.ctrl_cost_weight < inf)) {
    throw kwargs.error("ctrl_cost_weight", "must be finite and not negative");
  }
  if (!(task.healthy_reward >= 0.0 && task.healthy_reward < inf)) {
    throw kwargs.error("healthy_reward", "must be finite and not negative");
  }
  const auto z_range = kwargs.get<std::vector<double>>(
      "healthy_z_range", {defaults.healthy_z_low, defaults.healthy_z_high});
  if (z_range.size() != 2 || !(z_range[0] < standing_height && standing_height < z_range[1])) {
    std::ostringstream message;
    message << "must be [low, high] around the torso's standing height " << standing_height
            << " m (the start is healthy)";
    throw kwargs.error("healthy_z_range", message.str());
  }
  task.healthy_z_low = z_range[0];
  task.healthy_z_high = z_range[1];
  return task;
}

StepResult LocomotionTask::outcome(double forward_velocity, double control_squared,
                                   bool healthy) const {
  // As Gymnasium: with termination on, the step that ends the episode is paid as healthy.
  const double healthy_bonus = healthy || terminate_when_unhealthy ? healthy_reward : 0.0;
  const double reward =
      forward_reward_weight * forward_velocity + healthy_bonus - ctrl_cost_weight * control_squared;
  return {reward, terminate_when_unhealthy && !healthy, false};
}

}  // namespace mnrl::envs
