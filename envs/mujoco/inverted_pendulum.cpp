// mnrl/InvertedPendulum-v0: a pole on a cart, balanced by pushing the cart. Gymnasium's
// InvertedPendulum-v4 task (reward 1 per step, ends when the pole leans over 0.2 rad) on a
// model written for mnrl: its own masses and damping, so returns are not Gymnasium's to the
// step, though the task is the same.
#include <cmath>
#include <memory>

#include "core/kwargs.h"
#include "envs/mujoco/mujoco_env.h"
#include "envs/registry.h"

namespace mnrl::envs {
namespace {

// A cart sliding on a 2 m rail (slider limited to +-1 m), a 0.6 m pole hinged on it (limited
// to +-90 degrees). Masses are given, not derived from the geoms. The motor pushes the cart
// with up to 300 N (control +-3, gear 100). RK4 at 0.02 s; the env steps twice per action.
constexpr const char* kModel = R"(<mujoco model="mnrl_inverted_pendulum">
  <compiler angle="degree"/>
  <option timestep="0.02" integrator="RK4" gravity="0 0 -9.81"/>
  <default>
    <joint limited="true" damping="1"/>
    <geom contype="0" conaffinity="0"/>
  </default>
  <worldbody>
    <geom name="rail" type="capsule" fromto="-1 0 0 1 0 0" size="0.02" mass="0" rgba="0.4 0.4 0.8 1"/>
    <body name="cart">
      <joint name="slider" type="slide" axis="1 0 0" range="-1 1"/>
      <geom name="cart" type="box" size="0.15 0.1 0.06" mass="10" rgba="0.8 0.6 0.2 1"/>
      <body name="pole">
        <joint name="hinge" type="hinge" axis="0 1 0" range="-90 90"/>
        <geom name="pole" type="capsule" fromto="0 0 0 0 0 0.6" size="0.045" mass="5" rgba="0.2 0.7 0.7 1"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor name="push" joint="slider" gear="100" ctrllimited="true" ctrlrange="-3 3"/>
  </actuator>
</mujoco>
)";

class InvertedPendulum final : public MujocoEnv {
 public:
  explicit InvertedPendulum(const core::Kwargs& kwargs)
      : MujocoEnv(load_mujoco_model_text(kModel, "mnrl_inverted_pendulum.xml"), settings(kwargs)) {}

 private:
  static MujocoEnvSettings settings(const core::Kwargs& kwargs) {
    MujocoEnvSettings settings;
    settings.id = "mnrl/InvertedPendulum-v0";
    settings.model_source = "mnrl_inverted_pendulum.xml";
    settings.frame_skip = 2;
    settings.max_episode_steps = 1000;
    settings.reward_threshold = 950.0;
    settings.reset_noise_scale = kwargs.get<double>("reset_noise_scale", 0.01);
    if (!(settings.reset_noise_scale >= 0.0 && settings.reset_noise_scale <= 0.2)) {
      throw kwargs.error("reset_noise_scale", "must be in [0, 0.2] (the pole falls past 0.2 rad)");
    }
    return settings;
  }

  StepResult evaluate(const Transition&) override {
    const bool upright = state_is_finite() && std::abs(data().qpos[1]) <= 0.2;
    return {1.0, !upright, false};
  }
};

}  // namespace

MNRL_REGISTER_ENV("mnrl/InvertedPendulum-v0", InvertedPendulum);

}  // namespace mnrl::envs
