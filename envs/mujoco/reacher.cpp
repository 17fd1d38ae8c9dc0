// mnrl/Reacher-v0: a two-link arm on a table moves its fingertip to a target. Gymnasium's
// Reacher-v4 task (reward minus the fingertip's distance to the target minus the squared
// controls, 50 steps, never ends early) on a model written for mnrl: its own links, inertias
// and motors, so returns are not Gymnasium's to the step, though the task is the same. As
// Gymnasium's v5, the reward is of the state after the step and the observation leaves out the
// fingertip-target vector's height, always zero.
#include <cmath>
#include <memory>
#include <string>

#include "envs/mujoco/mujoco_env.h"
#include "envs/registry.h"

namespace mnrl::envs {
namespace {

// An arm lying flat at 1 cm above a table: a 0.12 m upper arm turning freely about the
// shoulder (vertical axis at the origin) and a 0.1 m forearm bent at the elbow by up to +-170
// degrees, so the fingertip reaches from 0.03 m to 0.22 m from the shoulder. Each joint has
// armature 0.5 kg m^2 (the links' own inertia is small beside it) and damping 0.8 N m s; each
// motor gives up to 100 N m (control +-1, gear 100). The target is a small ball on two free
// slide joints (x, y) in qpos, without damping or any force along them, so it stays where
// reset put it. Nothing collides. RK4 at 0.01 s; the env steps twice per action.
constexpr const char* kModel = R"(<mujoco model="mnrl_reacher">
  <compiler angle="degree"/>
  <option timestep="0.01" integrator="RK4" gravity="0 0 -9.81"/>
  <default>
    <joint type="hinge" axis="0 0 1" armature="0.5" damping="0.8"/>
    <geom contype="0" conaffinity="0"/>
  </default>
  <worldbody>
    <geom name="table" type="plane" size="0.4 0.4 0.01" rgba="0.9 0.9 0.9 1"/>
    <geom name="shoulder_mount" type="cylinder" fromto="0 0 0 0 0 0.02" size="0.015" rgba="0.9 0.4 0.6 1"/>
    <body name="upper_arm" pos="0 0 0.01">
      <joint name="shoulder"/>
      <geom name="upper_arm" type="capsule" fromto="0 0 0 0.12 0 0" size="0.01" mass="0.04" rgba="0.1 0.4 0.6 1"/>
      <body name="forearm" pos="0.12 0 0">
        <joint name="elbow" limited="true" range="-170 170"/>
        <geom name="forearm" type="capsule" fromto="0 0 0 0.1 0 0" size="0.01" mass="0.03" rgba="0.1 0.4 0.6 1"/>
        <site name="fingertip" pos="0.1 0 0" size="0.012" rgba="0.1 0.8 0.6 1"/>
      </body>
    </body>
    <body name="target" pos="0 0 0.01">
      <joint name="target_x" type="slide" axis="1 0 0" armature="0" damping="0"/>
      <joint name="target_y" type="slide" axis="0 1 0" armature="0" damping="0"/>
      <geom name="target" type="sphere" size="0.009" mass="0.01" rgba="0.9 0.2 0.2 1"/>
      <site name="target" size="0.009"/>
    </body>
  </worldbody>
  <actuator>
    <motor name="shoulder" joint="shoulder" gear="100" ctrllimited="true" ctrlrange="-1 1"/>
    <motor name="elbow" joint="elbow" gear="100" ctrllimited="true" ctrlrange="-1 1"/>
  </actuator>
</mujoco>
)";
constexpr const char* kModelName = "mnrl_reacher.xml";

// qpos and qvel are [shoulder, elbow, target x, target y]: the arm's angles, then the target.
constexpr int kArmJoints = 2;
// Reset noise (Gymnasium's): arm angles uniform in +-kAngleNoise around straight along x, arm
// speeds uniform in +-kSpeedNoise; the target uniform in the disc of radius kTargetRadius.
constexpr double kAngleNoise = 0.1;
constexpr double kSpeedNoise = 0.005;
constexpr double kTargetRadius = 0.2;

class Reacher final : public MujocoEnv {
 public:
  Reacher()
      : MujocoEnv(load_mujoco_model_text(kModel, kModelName), make_settings()),
        fingertip_(site_id("fingertip")),
        target_(site_id("target")) {}

 private:
  // cos and sin of both arm angles, the target's x and y, the arm's speeds, and the
  // fingertip-target vector's x and y.
  static constexpr int kObservationSize = 10;

  static MujocoEnvSettings make_settings() {
    MujocoEnvSettings settings;
    settings.id = "mnrl/Reacher-v0";
    settings.model_source = kModelName;
    settings.frame_skip = 2;
    settings.max_episode_steps = 50;
    settings.reward_threshold = -3.75;
    settings.qpos_skip = 4;  // all of qpos: the angles are observed as cos and sin
    settings.observe_qvel = false;
    settings.extra_observations = kObservationSize;
    return settings;
  }

  void reset_model(core::Rng& rng) override {
    mjData& state = mutable_data();
    for (int i = 0; i < kArmJoints; ++i) {
      state.qpos[i] = rng.uniform(-kAngleNoise, kAngleNoise);
      state.qvel[i] = rng.uniform(-kSpeedNoise, kSpeedNoise);
    }
    // Uniform in the disc by rejection from its bounding square, as Gymnasium.
    double x, y;
    do {
      x = rng.uniform(-kTargetRadius, kTargetRadius);
      y = rng.uniform(-kTargetRadius, kTargetRadius);
    } while (!(std::hypot(x, y) < kTargetRadius));
    state.qpos[2] = x;
    state.qpos[3] = y;  // the target's velocity stays zero, as mj_resetData left it
  }

  StepResult evaluate(const Transition& transition) override {
    // mj_step computes site positions before its last integration; bring them to the state
    // after the step, which the reward and the observation describe.
    mj_kinematics(&model(), &mutable_data());
    return {-fingertip_distance() - control_squared(transition.controls), false, false};
  }

  // The fingertip's offset from the target in the table's plane (both lie at the same height).
  double offset(int axis) const {
    return data().site_xpos[3 * fingertip_ + axis] - data().site_xpos[3 * target_ + axis];
  }
  double fingertip_distance() const { return std::hypot(offset(0), offset(1)); }

  void write_extra_observation(float* observation) const override {
    const mjData& state = data();
    float* out = observation;
    for (int i = 0; i < kArmJoints; ++i) *out++ = static_cast<float>(std::cos(state.qpos[i]));
    for (int i = 0; i < kArmJoints; ++i) *out++ = static_cast<float>(std::sin(state.qpos[i]));
    *out++ = static_cast<float>(state.qpos[2]);
    *out++ = static_cast<float>(state.qpos[3]);
    for (int i = 0; i < kArmJoints; ++i) *out++ = static_cast<float>(state.qvel[i]);
    *out++ = static_cast<float>(offset(0));
    *out++ = static_cast<float>(offset(1));
  }

  const int fingertip_;  // site ids
  const int target_;
};

}  // namespace

MNRL_REGISTER_ENV("mnrl/Reacher-v0", Reacher);

}  // namespace mnrl::envs
