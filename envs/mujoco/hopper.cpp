// mnrl/Hopper-v0: a one-legged robot in the x-z plane that learns to hop forward. Gymnasium's
// Hopper-v4 task (reward: forward velocity + 1 per healthy step - 1e-3 |action|^2; the episode
// ends when the torso sinks, leans past 0.2 rad or the state blows up) on a model written for
// mnrl: its own segment lengths, standing on the floor at reset, MuJoCo's default contact
// softness. Returns are not Gymnasium's to the step, though the task is the same.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/kwargs.h"
#include "envs/mujoco/locomotion_task.h"
#include "envs/mujoco/mujoco_env.h"
#include "envs/registry.h"

namespace mnrl::envs {
namespace {

// Four capsules in the x-z plane, their masses from their volumes at 1000 kg/m^3 (MuJoCo's
// default density): a 0.4 m torso and a 0.4 m thigh (radius 5 cm), a 0.45 m leg (4 cm) and a
// 0.35 m foot (5 cm) reaching 0.1 m behind the ankle and 0.25 m ahead; 13.1 kg in all. The
// torso slides in x and z and turns about y (rootx, rootz, rooty; rootz's ref makes qpos[1] the
// height of the torso's centre). The hip (thigh) and the knee (leg) bend one way, up to 150
// degrees, the ankle (foot) +-45 degrees; their motors give up to 200 N m (control +-1, gear
// 200), through armature 1 and damping 1 as in Gymnasium's hopper. At reset the foot rests on
// the floor: the torso's centre is 0.2 + 0.4 + 0.45 + 0.05 = 1.1 m up. RK4 at 2 ms.
constexpr const char* kModel = R"(<mujoco model="mnrl_hopper">
  <compiler angle="degree"/>
  <option timestep="0.002" integrator="RK4" gravity="0 0 -9.81"/>
  <default>
    <joint type="hinge" axis="0 -1 0" limited="true" armature="1" damping="1"/>
    <geom type="capsule" density="1000" friction="0.9" rgba="0.8 0.6 0.4 1"/>
    <motor gear="200" ctrllimited="true" ctrlrange="-1 1"/>
  </default>
  <worldbody>
    <geom name="floor" type="plane" size="100 2 0.1" rgba="0.8 0.9 0.8 1"/>
    <body name="torso" pos="0 0 1.1">
      <joint name="rootx" type="slide" axis="1 0 0" limited="false" armature="0" damping="0"/>
      <joint name="rootz" type="slide" axis="0 0 1" ref="1.1" limited="false" armature="0" damping="0"/>
      <joint name="rooty" type="hinge" axis="0 1 0" limited="false" armature="0" damping="0"/>
      <geom name="torso" fromto="0 0 0.2 0 0 -0.2" size="0.05"/>
      <body name="thigh" pos="0 0 -0.2">
        <joint name="thigh" range="-150 0"/>
        <geom name="thigh" fromto="0 0 0 0 0 -0.4" size="0.05"/>
        <body name="leg" pos="0 0 -0.4">
          <joint name="leg" range="-150 0"/>
          <geom name="leg" fromto="0 0 0 0 0 -0.45" size="0.04"/>
          <body name="foot" pos="0 0 -0.45">
            <joint name="foot" range="-45 45"/>
            <geom name="foot" fromto="-0.1 0 0 0.25 0 0" size="0.05" friction="2"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor name="thigh" joint="thigh"/>
    <motor name="leg" joint="leg"/>
    <motor name="foot" joint="foot"/>
  </actuator>
</mujoco>
)";

constexpr const char* kModelName = "mnrl_hopper.xml";
constexpr int kVelocities = 6;  // the model's nv: rootx, rootz, rooty, thigh, leg, foot
constexpr double kStandingHeight = 1.1;
// Gymnasium's hopper is healthy while its torso's centre is above 0.7 m, 58% of its standing
// height (1.21 m: its model holds the torso at 1.25 m with the foot 4 cm up); ours keeps the
// fraction: 0.64 m.
constexpr double kLowestHealthyHeight = 0.7 / 1.21 * kStandingHeight;
constexpr double kMaxHealthyAngle = 0.2;      // rad, the torso's lean either way
constexpr double kMaxHealthyMagnitude = 100;  // of every entry of the state after rootx, rootz
constexpr double kObservedSpeedLimit = 10;    // velocities are clipped to +-10 in observations

// Gymnasium's Hopper-v4 weights, and its healthy height scaled to this model (above).
constexpr LocomotionTask kHopperTask{
    1.0, 1e-3, 1.0, true, kLowestHealthyHeight, std::numeric_limits<double>::infinity()};

class Hopper final : public MujocoEnv {
 public:
  explicit Hopper(const core::Kwargs& kwargs)
      : MujocoEnv(load_mujoco_model_text(kModel, kModelName), read_settings(kwargs)),
        task_(LocomotionTask::read(kwargs, kHopperTask, kStandingHeight)) {}

 private:
  static MujocoEnvSettings read_settings(const core::Kwargs& kwargs) {
    MujocoEnvSettings settings;
    settings.id = "mnrl/Hopper-v0";
    settings.model_source = kModelName;
    settings.frame_skip = 4;
    settings.max_episode_steps = 1000;
    settings.reward_threshold = 3800.0;
    // qpos without rootx, then the clipped velocities (write_extra_observation).
    settings.qpos_skip = 1;
    settings.observe_qvel = false;
    settings.extra_observations = kVelocities;
    settings.reset_noise_scale = kwargs.get<double>("reset_noise_scale", 5e-3);
    if (!(settings.reset_noise_scale >= 0.0 && settings.reset_noise_scale <= 0.1)) {
      throw kwargs.error("reset_noise_scale", "must be in [0, 0.1] (the torso may lean 0.2 rad)");
    }
    return settings;
  }

  StepResult evaluate(const Transition& transition) override {
    const double forward_velocity = (data().qpos[0] - transition.qpos_before[0]) / dt();
    const bool healthy = is_healthy();
    return task_.outcome(forward_velocity, control_squared(transition.controls), healthy);
  }

  // Gymnasium's is_healthy, open intervals throughout; NaN fails every comparison, so it is
  // unhealthy.
  bool is_healthy() const {
    const mjModel& m = model();
    const mjData& d = data();
    const auto bounded = [](double v) {
      return v > -kMaxHealthyMagnitude && v < kMaxHealthyMagnitude;
    };
    const bool state_bounded = std::all_of(d.qpos + 2, d.qpos + m.nq, bounded) &&
                               std::all_of(d.qvel, d.qvel + m.nv, bounded);
    const double height = d.qpos[1];
    const double angle = d.qpos[2];
    return state_bounded && height > task_.healthy_z_low && height < task_.healthy_z_high &&
           angle > -kMaxHealthyAngle && angle < kMaxHealthyAngle;
  }

  void write_extra_observation(float* observation) const override {
    for (int i = 0; i < kVelocities; ++i) {
      observation[i] =
          static_cast<float>(std::clamp(data().qvel[i], -kObservedSpeedLimit, kObservedSpeedLimit));
    }
  }

  LocomotionTask task_;
};

}  // namespace

MNRL_REGISTER_ENV("mnrl/Hopper-v0", Hopper);

}  // namespace mnrl::envs
