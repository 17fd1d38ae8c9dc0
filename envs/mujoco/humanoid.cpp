// mnrl/Humanoid-v0: a 3-D humanoid that learns to walk forward. Gymnasium's Humanoid-v4 task
// (reward: 1.25 x the forward velocity of the centre of mass + 5 per healthy step
// - 0.1 |action|^2; the episode ends when the torso leaves its healthy height range) on
// DeepMind's humanoid as Debian ships it (package libmujoco-samples), not Gymnasium's
// humanoid.xml: 21 motors (Gymnasium's 17 and both ankles' two axes), controls in [-1, 1] with
// gears 20 to 120 (Gymnasium: [-0.4, 0.4], gears 25 to 300; the largest torques of the abdomen
// and legs agree: 40 N m at the abdomen and the hips' side and twist axes, 120 at the hips'
// flexion, 80 at the knees; the arms are 2 to 4 times stronger), Euler at 5 ms (Gymnasium: RK4
// at 3 ms), the torso 1.285 m up when standing (Gymnasium: 1.4 m).
// The observation is qpos without the root's x and y, then qvel: the whole simulation state but
// the position on the floor. Gymnasium also appends cinert, cvel, qfrc_actuator and cfrc_ext;
// the first three follow from that state (and the last action), the last is all zeros in v4.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "core/kwargs.h"
#include "envs/mujoco/locomotion_task.h"
#include "envs/mujoco/mujoco_env.h"
#include "envs/registry.h"

namespace mnrl::envs {
namespace {

constexpr const char* kDebianModelPath = "/usr/share/mujoco/model/humanoid/humanoid.xml";
// Gymnasium's humanoid stands with its torso 1.4 m up and is healthy while the torso is
// between 1.0 and 2.0 m; the default range keeps those fractions of the model's standing height.
constexpr double kGymnasiumStandingHeight = 1.4;
constexpr double kGymnasiumHealthyLow = 1.0;
constexpr double kGymnasiumHealthyHigh = 2.0;

// How far below the floor (z = 0) the lowest point of the robot's geoms is in `data`'s pose:
// spheres and capsules exactly, other shapes by their bounding sphere (so they start a little
// above the floor).
double depth_below_floor(const mjModel& model, const mjData& data) {
  double lowest = std::numeric_limits<double>::infinity();
  for (int g = 0; g < model.ngeom; ++g) {
    if (model.geom_bodyid[g] == 0) continue;  // the floor and the rest of the world
    const double radius = model.geom_size[3 * g];
    double reach;  // how far the geom reaches below its centre
    switch (model.geom_type[g]) {
      case mjGEOM_SPHERE:
        reach = radius;
        break;
      case mjGEOM_CAPSULE:  // its axis is its local z (geom_xmat[8]: that axis' vertical part)
        reach = radius + std::abs(data.geom_xmat[9 * g + 8]) * model.geom_size[3 * g + 1];
        break;
      default:
        reach = model.geom_rbound[g];
    }
    lowest = std::min(lowest, data.geom_xpos[3 * g + 2] - reach);
  }
  return -lowest;
}

// The humanoid at `path`, its home pose (qpos0) lowered or raised onto the floor: DeepMind's
// model holds the torso at 1.5 m, the feet 21.5 cm up (the Control Suite drops it); Gymnasium's
// humanoid starts standing.
MujocoModelPtr standing_model(const std::string& path) {
  if (!std::ifstream(path).good()) {
    throw MujocoModelError(path +
                           ": cannot open the humanoid's MJCF model (missing or unreadable); the "
                           "default is Debian's, from the libmujoco-samples package");
  }
  MujocoModelPtr model = load_mujoco_model(path);
  if (model->njnt == 0 || model->jnt_type[0] != mjJNT_FREE) {
    throw MujocoModelError(path +
                           ": the humanoid's first joint must be its torso's free joint "
                           "(qpos[0:3] is the torso's position)");
  }
  const MujocoDataPtr home(mj_makeData(model.get()));  // at qpos0
  mj_kinematics(model.get(), home.get());
  model->qpos0[2] += depth_below_floor(*model, *home);
  return model;
}

// Gymnasium's Humanoid-v4 weights and healthy range, the range scaled to `standing_height`.
LocomotionTask read_task(const core::Kwargs& kwargs, double standing_height) {
  const double scale = standing_height / kGymnasiumStandingHeight;
  const LocomotionTask defaults{
      1.25, 0.1, 5.0, true, kGymnasiumHealthyLow * scale, kGymnasiumHealthyHigh * scale};
  return LocomotionTask::read(kwargs, defaults, standing_height);
}

class Humanoid final : public MujocoEnv {
 public:
  explicit Humanoid(const core::Kwargs& kwargs)
      : Humanoid(kwargs, kwargs.get("model_path", kDebianModelPath)) {}

 private:
  Humanoid(const core::Kwargs& kwargs, const std::string& path)
      : MujocoEnv(standing_model(path), read_settings(kwargs, path)),
        task_(read_task(kwargs, model().qpos0[2])),
        pose_(mj_makeData(&model())) {}

  static MujocoEnvSettings read_settings(const core::Kwargs& kwargs, const std::string& path) {
    MujocoEnvSettings settings;
    settings.id = "mnrl/Humanoid-v0";
    settings.model_source = path;
    settings.frame_skip = 5;
    settings.max_episode_steps = 1000;
    settings.qpos_skip = 2;  // the root's x and y
    settings.reset_noise_scale = kwargs.get<double>("reset_noise_scale", 1e-2);
    if (!(settings.reset_noise_scale >= 0.0 && settings.reset_noise_scale <= 0.1)) {
      throw kwargs.error("reset_noise_scale", "must be in [0, 0.1] (the start stays standing)");
    }
    return settings;
  }

  StepResult evaluate(const Transition& transition) override {
    const double forward_velocity =
        (centre_of_mass_x(data().qpos) - centre_of_mass_x(transition.qpos_before)) / dt();
    const double height = data().qpos[2];
    const bool healthy =
        state_is_finite() && height > task_.healthy_z_low && height < task_.healthy_z_high;
    return task_.outcome(forward_velocity, control_squared(transition.controls), healthy);
  }

  // The x of the centre of mass in pose `qpos`. data() after a step holds the body positions of
  // the step's last substep start, not of its final qpos, so the pose is computed in pose_.
  double centre_of_mass_x(const double* qpos) {
    const mjModel& m = model();
    std::copy(qpos, qpos + m.nq, pose_->qpos);
    mj_kinematics(&m, pose_.get());
    double mass = 0.0, moment = 0.0;
    for (int body = 1; body < m.nbody; ++body) {  // body 0 is the world
      mass += m.body_mass[body];
      moment += m.body_mass[body] * pose_->xipos[3 * body];
    }
    return moment / mass;
  }

  LocomotionTask task_;
  MujocoDataPtr pose_;  // scratch: body positions for centre_of_mass_x
};

}  // namespace

MNRL_REGISTER_ENV("mnrl/Humanoid-v0", Humanoid);

}  // namespace mnrl::envs
