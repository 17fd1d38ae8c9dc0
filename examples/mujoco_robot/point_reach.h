#pragma once

#include <cmath>
#include <string>

#include "core/kwargs.h"
#include "core/rng.h"
#include "envs/mujoco/mujoco_env.h"

// PointReach-v0: push a puck (point_mass.xml, or any model with two actuated slide joints first
// in qpos) to a goal drawn at each reset. Observation: puck position and velocity, then the
// goal (2 floats from write_extra_observation). Reward: minus the distance to the goal, minus
// a small control cost. Never terminates; 100-step episodes.
class PointReach final : public mnrl::envs::MujocoEnv {
 public:
  explicit PointReach(const mnrl::core::Kwargs& kwargs)
      : MujocoEnv(mnrl::envs::load_mujoco_model(model_path(kwargs)), settings(kwargs)) {}

 private:
  static std::string model_path(const mnrl::core::Kwargs& kwargs) {
    if (!kwargs.contains("model_path")) {
      throw kwargs.error("model_path", "is required: the MJCF file of the robot");
    }
    return kwargs.get<std::string>("model_path");
  }

  static mnrl::envs::MujocoEnvSettings settings(const mnrl::core::Kwargs& kwargs) {
    mnrl::envs::MujocoEnvSettings settings;
    settings.id = "PointReach-v0";
    settings.model_source = model_path(kwargs);
    settings.frame_skip = 5;
    settings.max_episode_steps = 100;
    settings.extra_observations = 2;  // the goal
    settings.reset_noise_scale = 0.0;
    return settings;
  }

  // The puck starts at rest in the middle; the goal anywhere within 0.3 of it.
  void reset_model(mnrl::core::Rng& rng) override {
    MujocoEnv::reset_model(rng);
    goal_x_ = rng.uniform(-0.3, 0.3);
    goal_y_ = rng.uniform(-0.3, 0.3);
  }

  mnrl::envs::StepResult evaluate(const Transition& transition) override {
    const double dx = data().qpos[0] - goal_x_;
    const double dy = data().qpos[1] - goal_y_;
    return {-std::sqrt(dx * dx + dy * dy) - 0.01 * control_squared(transition.controls), false,
            false};
  }

  void write_extra_observation(float* observation) const override {
    observation[0] = static_cast<float>(goal_x_);
    observation[1] = static_cast<float>(goal_y_);
  }

  // The goal is state the simulation does not hold: saved with it, for exact resume.
  void save_task_state(mnrl::core::StateWriter& out) const override {
    out.value(goal_x_);
    out.value(goal_y_);
  }
  void load_task_state(mnrl::core::StateReader& in) override {
    in.value(goal_x_);
    in.value(goal_y_);
  }

  double goal_x_ = 0.0;
  double goal_y_ = 0.0;
};
