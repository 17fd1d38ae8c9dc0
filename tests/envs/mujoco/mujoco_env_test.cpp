// The MujocoEnv base on small models written here (free fall, a ball resting on the floor) and
// the built-in mnrl/InvertedPendulum-v0: physics against closed-form answers, the env checker,
// action clipping, state save/restore bit for bit, and clear errors for bad models and kwargs.
#include "envs/mujoco/mujoco_env.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/kwargs.h"
#include "core/rng.h"
#include "core/state_stream.h"
#include "envs/env_checker.h"
#include "envs/registry.h"
#include "registered_env_checks.h"

namespace mnrl::envs {
namespace {

constexpr double kG = 9.81;

// A 2 kg point mass on a vertical slide, pushed by a 1:1 motor with control in [-1, 1]. RK4 is
// exact for constant acceleration, so positions follow z = z0 + v0 t + a t^2 / 2 to rounding.
constexpr const char* kSlider = R"(<mujoco>
  <option timestep="0.01" integrator="RK4" gravity="0 0 -9.81"/>
  <worldbody>
    <body name="mass">
      <joint name="z" type="slide" axis="0 0 1" limited="false"/>
      <geom type="sphere" size="0.1" mass="2" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <actuator><motor joint="z" gear="1" ctrllimited="true" ctrlrange="-1 1"/></actuator>
</mujoco>)";

// A 3 kg ball on a free joint, dropped 1 cm onto a plane.
constexpr const char* kBallOnFloor = R"(<mujoco>
  <option timestep="0.002" gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="ball" pos="0 0 0.11">
      <freejoint name="free"/>
      <geom type="sphere" size="0.1" mass="3"/>
    </body>
  </worldbody>
  <actuator><motor joint="free" gear="0 0 1 0 0 0" ctrllimited="true" ctrlrange="-1 1"/></actuator>
</mujoco>)";

class TestEnv final : public MujocoEnv {
 public:
  TestEnv(const char* xml, MujocoEnvSettings settings)
      : MujocoEnv(load_mujoco_model_text(xml, "test.xml"), std::move(settings)) {}
  using MujocoEnv::contact_force_squared;

 private:
  StepResult evaluate(const Transition& t) override {
    return {-control_squared(t.controls), false, false};
  }
};

MujocoEnvSettings settings(int frame_skip, double noise = 0.0) {
  MujocoEnvSettings s;
  s.id = "Test-v0";
  s.model_source = "test.xml";
  s.frame_skip = frame_skip;
  s.reset_noise_scale = noise;
  return s;
}

TEST(MujocoEnv, SpecComesFromTheModel) {
  TestEnv env(kSlider, settings(5));
  EXPECT_EQ(env.spec().action_space, Space(Box{{1}, {-1.0f}, {1.0f}}));
  EXPECT_EQ(flat_size(env.spec().observation_space), 2);  // qpos, qvel
  EXPECT_DOUBLE_EQ(env.dt(), 0.05);
}

TEST(MujocoEnv, FreeFallFollowsTheClosedForm) {
  TestEnv env(kSlider, settings(5));
  std::array<float, 2> obs{};
  env.reset(obs.data(), 0);
  const float push = 0.5f;  // 0.5 N up on 2 kg: a = -g + 0.25
  const double a = -kG + 0.25;
  for (int k = 1; k <= 20; ++k) {
    const StepResult r = env.step(ActionRef{0, &push, 1}, obs.data());
    const double t = k * env.dt();
    EXPECT_NEAR(env.data().qpos[0], 0.5 * a * t * t, 1e-9) << "step " << k;
    EXPECT_NEAR(env.data().qvel[0], a * t, 1e-9) << "step " << k;
    EXPECT_DOUBLE_EQ(r.reward, -0.25);
  }
}

TEST(MujocoEnv, ActionsAreClippedIntoTheControlRange) {
  TestEnv clipped(kSlider, settings(5)), limit(kSlider, settings(5));
  std::array<float, 2> a{}, b{};
  clipped.reset(a.data(), 0);
  limit.reset(b.data(), 0);
  const float huge = 50.0f, one = 1.0f;
  for (int k = 0; k < 5; ++k) {
    EXPECT_EQ(clipped.step(ActionRef{0, &huge, 1}, a.data()).reward, -1.0);
    limit.step(ActionRef{0, &one, 1}, b.data());
    EXPECT_EQ(a, b);
  }
}

// Resting on the floor, the ball's external contact force carries its weight.
TEST(MujocoEnv, ContactForceOfARestingBallIsItsWeight) {
  MujocoEnvSettings s = settings(10);
  s.contact_forces = true;
  TestEnv env(kBallOnFloor, s);
  std::vector<float> obs(flat_size(env.spec().observation_space));
  env.reset(obs.data(), 0);
  const float nothing = 0.0f;
  for (int k = 0; k < 100; ++k) env.step(ActionRef{0, &nothing, 1}, obs.data());
  const double inf = std::numeric_limits<double>::infinity();
  const double weight = 3 * kG;
  EXPECT_NEAR(std::sqrt(env.contact_force_squared(-inf, inf)), weight, 0.02 * weight);
  EXPECT_NEAR(env.contact_force_squared(-1.0, 1.0), 1.0, 0.05);  // clipped: only |F_z| = 1 left
}

std::unique_ptr<Env> pendulum(const core::Kwargs& kwargs = {}) {
  return Registry::global().make("mnrl/InvertedPendulum-v0", kwargs);
}

TEST(InvertedPendulum, SpecAndChecker) {
  const auto env = pendulum();
  EXPECT_EQ(env->spec().action_space, Space(Box{{1}, {-3.0f}, {3.0f}}));
  EXPECT_EQ(flat_size(env->spec().observation_space), 4);
  EXPECT_EQ(env->spec().max_episode_steps, 1000);
  EXPECT_EQ(env->spec().reward_threshold, 950.0);
  test_envs::expect_checker_passes("mnrl/InvertedPendulum-v0");
}

// Left alone, the pole falls away from upright (faster and faster) and the episode ends when
// it passes 0.2 rad; every step before pays 1.
TEST(InvertedPendulum, UncontrolledPoleFalls) {
  auto env = pendulum();
  std::array<float, 4> obs{};
  env->reset(obs.data(), 2);
  const float nothing = 0.0f;
  int steps = 0;
  double previous = std::abs(obs[1]);
  StepResult r;
  do {
    r = env->step(ActionRef{0, &nothing, 1}, obs.data());
    ++steps;
    ASSERT_EQ(r.reward, 1.0);
    if (std::abs(obs[1]) > 0.02) {
      EXPECT_GT(std::abs(obs[1]), previous) << "step " << steps;
    }
    previous = std::abs(obs[1]);
  } while (!r.terminated && steps < 1000);
  EXPECT_TRUE(r.terminated);
  EXPECT_GT(std::abs(obs[1]), 0.2);
  EXPECT_LT(steps, 200);
}

TEST(InvertedPendulum, SavedStateResumesBitForBit) {
  test_envs::expect_resumes_bit_for_bit("mnrl/InvertedPendulum-v0", 9, 13);
}

TEST(InvertedPendulum, RefusesANoiseScaleOutOfRange) {
  core::Kwargs kwargs("env.kwargs", "p.yaml:3:3");
  kwargs.set("reset_noise_scale", 0.5, "p.yaml:4:22");
  try {
    pendulum(kwargs);
    FAIL() << "accepted";
  } catch (const core::KwargError& e) {
    EXPECT_NE(std::string(e.what()).find("reset_noise_scale"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("p.yaml:4:22"), std::string::npos) << e.what();
  }
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const MujocoModelError& e) {
    return e.what();
  }
  return "(no MujocoModelError)";
}

TEST(MujocoModel, MissingFileIsNamed) {
  const std::string what = message_of([] { load_mujoco_model("/nonexistent/robot.xml"); });
  EXPECT_NE(what.find("/nonexistent/robot.xml"), std::string::npos) << what;
}

// A FIFO as the model would block the open until someone writes to it: refused at once.
TEST(MujocoModel, AFifoIsRefusedWithoutBlocking) {
  const std::string path = ::testing::TempDir() + "robot_fifo.xml";
  std::remove(path.c_str());
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  const std::string what = message_of([&] { load_mujoco_model(path); });
  EXPECT_EQ(what, path + ": the MJCF model is not a regular file");
  std::remove(path.c_str());
}

TEST(MujocoModel, MalformedFileGivesMujocosMessageAndLine) {
  const std::string path = ::testing::TempDir() + "broken_robot.xml";
  std::ofstream(path)
      << "<mujoco>\n  <worldbody>\n    <body name=\"a\">\n  </worldbody>\n</mujoco>\n";
  const std::string what = message_of([&] { load_mujoco_model(path); });
  EXPECT_NE(what.find(path), std::string::npos) << what;
  EXPECT_NE(what.find("Line number=3"), std::string::npos) << what;  // MuJoCo names the line
  std::remove(path.c_str());
}

TEST(MujocoModel, ModelWithoutActuatorsIsRefused) {
  const std::string what = message_of([] {
    TestEnv env(
        "<mujoco><worldbody><body><freejoint/><geom size=\"0.1\"/></body></worldbody></mujoco>",
        settings(1));
  });
  EXPECT_NE(what.find("no actuators"), std::string::npos) << what;
  EXPECT_NE(what.find("test.xml"), std::string::npos) << what;
}

TEST(MujocoModel, ActuatorWithoutControlRangeIsRefused) {
  const std::string what = message_of([] {
    TestEnv env(
        "<mujoco><worldbody><body><joint name=\"j\" type=\"slide\"/><geom size=\"0.1\"/></body>"
        "</worldbody><actuator><motor name=\"m\" joint=\"j\"/></actuator></mujoco>",
        settings(1));
  });
  EXPECT_NE(what.find("'m'"), std::string::npos) << what;
  EXPECT_NE(what.find("ctrlrange"), std::string::npos) << what;
}

}  // namespace
}  // namespace mnrl::envs
