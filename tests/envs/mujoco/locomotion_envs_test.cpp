// The built-in MuJoCo walkers: mnrl/Hopper-v0 (a model written for mnrl) and mnrl/Humanoid-v0
// (Debian's DeepMind humanoid). Their specs, the env checker, physics a physicist would check
// (standing at reset, falling without control, rewards recomputed from positions and actions,
// pushes moving the body the expected way, masses), state save/restore bit for bit, and clear
// errors for kwargs out of range and a missing model.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "core/kwargs.h"
#include "core/rng.h"
#include "core/state_stream.h"
#include "envs/env_checker.h"
#include "envs/mujoco/mujoco_env.h"
#include "envs/registry.h"
#include "envs/wrapper.h"
#include "registered_env_checks.h"

namespace mnrl::envs {
namespace {

constexpr double kG = 9.81;
constexpr double kPi = 3.14159265358979323846;
constexpr const char* kHopper = "mnrl/Hopper-v0";
constexpr const char* kHumanoid = "mnrl/Humanoid-v0";

std::unique_ptr<Env> make(const std::string& id, const core::Kwargs& kwargs = {}) {
  return Registry::global().make(id, kwargs);
}

// The simulation under the time limit that Registry::make wraps around it.
const MujocoEnv& simulation(const Env& env) {
  return dynamic_cast<const MujocoEnv&>(dynamic_cast<const Wrapper&>(env).inner());
}

core::Kwargs without_reset_noise() {
  core::Kwargs kwargs;
  kwargs.set("reset_noise_scale", 0.0);
  return kwargs;
}

std::vector<float> random_action(const Env& env, core::Rng& rng) {
  const Box& box = std::get<Box>(env.spec().action_space);
  std::vector<float> action(box.low.size());
  for (std::size_t i = 0; i < action.size(); ++i) {
    action[i] = static_cast<float>(rng.uniform(box.low[i], box.high[i]));
  }
  return action;
}

StepResult step(Env& env, const std::vector<float>& action, std::vector<float>& observation) {
  return env.step(ActionRef{0, action.data(), static_cast<std::int64_t>(action.size())},
                  observation.data());
}

double squared(const std::vector<float>& action) {
  double sum = 0.0;
  for (const float a : action) sum += static_cast<double>(a) * a;
  return sum;
}

// MuJoCo's own centre of mass of the model in pose `qpos` (the world body's subtree_com), found
// independently of the env's weighted sum of body positions.
std::array<double, 3> centre_of_mass(const mjModel& model, const double* qpos) {
  const MujocoDataPtr pose(mj_makeData(&model));
  std::copy(qpos, qpos + model.nq, pose->qpos);
  mj_kinematics(&model, pose.get());
  mj_comPos(&model, pose.get());
  return {pose->subtree_com[0], pose->subtree_com[1], pose->subtree_com[2]};
}

double total_mass(const mjModel& model) {
  double mass = 0.0;
  for (int body = 1; body < model.nbody; ++body) mass += model.body_mass[body];
  return mass;
}

// A capsule of radius r and cylinder length l at water's density (MuJoCo's default).
double capsule_mass(double r, double l) {
  return 1000.0 * (kPi * r * r * l + 4.0 / 3.0 * kPi * r * r * r);
}

// ---------------------------------------------------------------------------------------------
// Hopper

TEST(Hopper, Spec) {
  const auto env = make(kHopper);
  EXPECT_EQ(env->spec().action_space, Space(Box{{3}, {-1.0f, -1.0f, -1.0f}, {1.0f, 1.0f, 1.0f}}));
  EXPECT_EQ(flat_size(env->spec().observation_space), 11);  // qpos without rootx (5), qvel (6)
  EXPECT_EQ(env->spec().max_episode_steps, 1000);
  EXPECT_EQ(env->spec().reward_threshold, 3800.0);
  EXPECT_DOUBLE_EQ(simulation(*env).dt(), 0.008);  // 4 steps of 2 ms
}

TEST(Hopper, CheckerPasses) { test_envs::expect_checker_passes(kHopper); }

// Torso 3.67 kg, thigh 3.67, leg 2.53, foot 3.27: capsules at 1000 kg/m^3, as documented.
TEST(Hopper, MassComesFromTheCapsules) {
  const auto env = make(kHopper);
  const double expected =
      2 * capsule_mass(0.05, 0.4) + capsule_mass(0.04, 0.45) + capsule_mass(0.05, 0.35);
  EXPECT_NEAR(total_mass(simulation(*env).model()), expected, 1e-9);
  EXPECT_NEAR(expected, 13.13, 0.01);
}

// The torso's centre is 0.2 + 0.4 + 0.45 + 0.05 m up, the foot's underside on the floor, and
// the observation starts with that height.
TEST(Hopper, StandsOnTheFloorAtReset) {
  auto env = make(kHopper, without_reset_noise());
  std::vector<float> observation(11);
  env->reset(observation.data(), 0);
  const MujocoEnv& sim = simulation(*env);
  EXPECT_NEAR(sim.data().qpos[1], 1.1, 1e-12);
  const int foot = mj_name2id(&sim.model(), mjOBJ_GEOM, "foot");
  EXPECT_NEAR(sim.data().geom_xpos[3 * foot + 2] - sim.model().geom_size[3 * foot], 0.0, 1e-12);
  EXPECT_FLOAT_EQ(observation[0], 1.1f);
}

// Without control the joints give way: the hopper folds over and the episode ends because the
// torso leans past 0.2 rad or sinks below the healthy height, every step before paying about 1.
TEST(Hopper, UncontrolledHopperFalls) {
  for (const std::uint64_t seed : {0, 1, 2}) {
    auto env = make(kHopper);
    std::vector<float> observation(11);
    env->reset(observation.data(), seed);
    const std::vector<float> nothing(3, 0.0f);
    StepResult r;
    int steps = 0;
    do {
      r = step(*env, nothing, observation);
      ++steps;
    } while (!r.terminated && steps < 1000);
    EXPECT_TRUE(r.terminated) << "seed " << seed;
    EXPECT_LT(steps, 400) << "seed " << seed;
    const double* qpos = simulation(*env).data().qpos;
    EXPECT_TRUE(std::abs(qpos[2]) >= 0.2 || qpos[1] <= 0.7 / 1.21 * 1.1) << "seed " << seed;
  }
}

// reward = (x after - x before) / dt + 1 - 1e-3 |action|^2, with x the torso's position.
TEST(Hopper, RewardIsForwardVelocityPlusHealthyMinusControlCost) {
  auto env = make(kHopper);
  const MujocoEnv& sim = simulation(*env);
  std::vector<float> observation(11);
  env->reset(observation.data(), 4);
  core::Rng rng(5);
  for (int k = 0; k < 200; ++k) {
    const double x_before = sim.data().qpos[0];
    const std::vector<float> action = random_action(*env, rng);
    const StepResult r = step(*env, action, observation);
    const double expected = (sim.data().qpos[0] - x_before) / 0.008 + 1.0 - 1e-3 * squared(action);
    ASSERT_NEAR(r.reward, expected, 1e-9) << "step " << k;
    if (r.terminated) env->reset(observation.data(), std::nullopt);
  }
}

// The ankle's motor turns the foot one way and the leg above it the other: with the foot on the
// floor, a positive control (about -y on the foot, so about +y on the leg) tips the leg and the
// torso forward (+x), a negative one backward.
TEST(Hopper, AnklePushMovesTheTorsoTheWayItTurnsTheLeg) {
  for (const float push : {1.0f, -1.0f}) {
    auto env = make(kHopper, without_reset_noise());
    std::vector<float> observation(11);
    env->reset(observation.data(), 0);
    const std::vector<float> action{0.0f, 0.0f, push};
    for (int k = 0; k < 10; ++k) ASSERT_FALSE(step(*env, action, observation).terminated);
    EXPECT_GT(push * simulation(*env).data().qpos[0], 0.005) << "push " << push;
  }
}

// The hip and the knee stand at their joint limit (0): pushing into it moves nothing.
TEST(Hopper, PushIntoTheJointLimitsMovesNothing) {
  auto env = make(kHopper, without_reset_noise());
  std::vector<float> observation(11);
  env->reset(observation.data(), 0);
  const std::vector<float> action{1.0f, 1.0f, 0.0f};
  for (int k = 0; k < 50; ++k) ASSERT_FALSE(step(*env, action, observation).terminated);
  const double* qpos = simulation(*env).data().qpos;
  EXPECT_NEAR(qpos[0], 0.0, 0.005);  // x
  EXPECT_NEAR(qpos[1], 1.1, 0.005);  // height
  EXPECT_NEAR(qpos[3], 0.0, 0.01);   // hip
  EXPECT_NEAR(qpos[4], 0.0, 0.01);   // knee
}

TEST(Hopper, ObservedVelocitiesAreClipped) {
  core::Kwargs kwargs;
  kwargs.set("terminate_when_unhealthy", false);  // let it flail long enough to move fast
  auto env = make(kHopper, kwargs);
  const MujocoEnv& sim = simulation(*env);
  std::vector<float> observation(11);
  env->reset(observation.data(), 0);
  core::Rng rng(2);
  bool clipped = false;
  for (int k = 0; k < 1000; ++k) {
    step(*env, random_action(*env, rng), observation);
    for (int i = 0; i < 6; ++i) {
      const double v = sim.data().qvel[i];
      ASSERT_EQ(observation[5 + i], static_cast<float>(std::clamp(v, -10.0, 10.0))) << "step " << k;
      clipped = clipped || std::abs(v) > 10.0;
    }
  }
  EXPECT_TRUE(clipped) << "no velocity reached the clip";
}

TEST(Hopper, SavedStateResumesBitForBit) { test_envs::expect_resumes_bit_for_bit(kHopper, 9, 13); }

// ---------------------------------------------------------------------------------------------
// Humanoid

TEST(Humanoid, Spec) {
  const auto env = make(kHumanoid);
  EXPECT_EQ(env->spec().action_space,
            Space(Box{{21}, std::vector<float>(21, -1.0f), std::vector<float>(21, 1.0f)}));
  EXPECT_EQ(flat_size(env->spec().observation_space), 26 + 27);  // qpos without x, y; qvel
  EXPECT_EQ(env->spec().max_episode_steps, 1000);
  EXPECT_FALSE(env->spec().reward_threshold.has_value());
  EXPECT_DOUBLE_EQ(simulation(*env).dt(), 0.025);  // 5 steps of the model's 5 ms
}

TEST(Humanoid, CheckerPasses) { test_envs::expect_checker_passes(kHumanoid); }

// Every body's mass comes from its geoms (capsules and spheres) at 1000 kg/m^3: about 41 kg.
TEST(Humanoid, MassComesFromTheGeoms) {
  const auto env = make(kHumanoid);
  const mjModel& model = simulation(*env).model();
  double expected = 0.0;
  for (int g = 0; g < model.ngeom; ++g) {
    if (model.geom_bodyid[g] == 0) continue;  // the floor
    const double r = model.geom_size[3 * g];
    ASSERT_TRUE(model.geom_type[g] == mjGEOM_CAPSULE || model.geom_type[g] == mjGEOM_SPHERE);
    expected += model.geom_type[g] == mjGEOM_SPHERE
                    ? capsule_mass(r, 0.0)
                    : capsule_mass(r, 2 * model.geom_size[3 * g + 1]);
  }
  EXPECT_NEAR(total_mass(model), expected, 1e-9 * expected);
  EXPECT_NEAR(total_mass(model), 40.84, 0.01);
}

// DeepMind's model holds the torso at 1.5 m with the feet 0.215 m up (torso to sole: 0.26 +
// 0.165 + 0.04 + 0.403 + 0.39 m of body offsets and the 0.027 m foot radius); the env starts it
// standing, the torso 1.285 m up.
TEST(Humanoid, StandsOnTheFloorAtReset) {
  auto env = make(kHumanoid, without_reset_noise());
  std::vector<float> observation(53);
  env->reset(observation.data(), 0);
  const MujocoEnv& sim = simulation(*env);
  EXPECT_NEAR(sim.data().qpos[2], 1.285, 1e-12);
  EXPECT_FLOAT_EQ(observation[0], 1.285f);
  for (const char* sole :
       {"right_right_foot", "left_right_foot", "left_left_foot", "right_left_foot"}) {
    const int foot = mj_name2id(&sim.model(), mjOBJ_GEOM, sole);
    ASSERT_GE(foot, 0) << sole;
    EXPECT_NEAR(sim.data().geom_xpos[3 * foot + 2] - sim.model().geom_size[3 * foot], 0.0, 1e-12)
        << sole;
  }
}

// Debian's humanoid with its floor removed, in a temporary file.
std::string floorless_humanoid() {
  std::ifstream in("/usr/share/mujoco/model/humanoid/humanoid.xml");
  std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t floor = xml.find("<geom name=\"floor\"");
  EXPECT_NE(floor, std::string::npos);
  xml.erase(floor, xml.find("/>", floor) + 2 - floor);
  const std::string path = ::testing::TempDir() + "floorless_humanoid.xml";
  std::ofstream(path) << xml;
  return path;
}

// With nothing under its feet the humanoid falls freely: from rest, in uniform gravity, no joint
// moves and the centre of mass drops as MuJoCo's Euler integrator says, g h^2 n (n + 1) / 2
// after n substeps of h (v_n = -g h n, then z_n = z_(n-1) + h v_n). The episode ends on the
// step that takes the torso below the healthy range, 1.0 / 1.4 of its standing height 1.285 m.
TEST(Humanoid, DroppedCentreOfMassFallsFreely) {
  const std::string path = floorless_humanoid();
  core::Kwargs kwargs;
  kwargs.set("model_path", path);
  kwargs.set("reset_noise_scale", 0.0);
  auto env = make(kHumanoid, kwargs);
  const MujocoEnv& sim = simulation(*env);
  std::vector<float> observation(53);
  env->reset(observation.data(), 0);
  const double h = sim.model().opt.timestep;
  const double start = centre_of_mass(sim.model(), sim.data().qpos)[2];
  const std::vector<float> nothing(21, 0.0f);
  for (int k = 1;; ++k) {
    const StepResult r = step(*env, nothing, observation);
    const double n = 5.0 * k;
    const double drop = kG * h * h * n * (n + 1) / 2;
    ASSERT_NEAR(start - centre_of_mass(sim.model(), sim.data().qpos)[2], drop, 1e-9)
        << "step " << k;
    ASSERT_NEAR(sim.data().qpos[2], 1.285 - drop, 1e-9) << "step " << k;
    for (int joint = 7; joint < sim.model().nq; ++joint) {  // after the free joint's 7
      ASSERT_NEAR(sim.data().qpos[joint], 0.0, 1e-12) << "qpos " << joint << ", step " << k;
    }
    ASSERT_EQ(r.terminated, 1.285 - drop <= 1.285 / 1.4) << "step " << k;
    if (r.terminated) break;
  }
  std::remove(path.c_str());
}

// Without control the humanoid topples over: the torso sinks below the healthy range and the
// centre of mass comes down.
TEST(Humanoid, UncontrolledHumanoidFalls) {
  auto env = make(kHumanoid, without_reset_noise());
  const MujocoEnv& sim = simulation(*env);
  std::vector<float> observation(53);
  env->reset(observation.data(), 0);
  const double start = centre_of_mass(sim.model(), sim.data().qpos)[2];
  const std::vector<float> nothing(21, 0.0f);
  StepResult r;
  int steps = 0;
  do {
    r = step(*env, nothing, observation);
    ++steps;
  } while (!r.terminated && steps < 1000);
  EXPECT_TRUE(r.terminated);
  EXPECT_LT(steps, 100);
  EXPECT_LE(sim.data().qpos[2], 1.285 / 1.4);
  EXPECT_GT(start - centre_of_mass(sim.model(), sim.data().qpos)[2], 0.15);
}

// reward = 1.25 (centre of mass x after - before) / dt + 5 - 0.1 |action|^2.
TEST(Humanoid, RewardIsCentreOfMassVelocityPlusHealthyMinusControlCost) {
  auto env = make(kHumanoid);
  const MujocoEnv& sim = simulation(*env);
  std::vector<float> observation(53);
  env->reset(observation.data(), 4);
  core::Rng rng(5);
  for (int k = 0; k < 200; ++k) {
    const double x_before = centre_of_mass(sim.model(), sim.data().qpos)[0];
    const std::vector<float> action = random_action(*env, rng);
    const StepResult r = step(*env, action, observation);
    const double x_after = centre_of_mass(sim.model(), sim.data().qpos)[0];
    const double expected = 1.25 * (x_after - x_before) / 0.025 + 5.0 - 0.1 * squared(action);
    ASSERT_NEAR(r.reward, expected, 1e-9) << "step " << k;
    if (r.terminated) env->reset(observation.data(), std::nullopt);
  }
}

TEST(Humanoid, SavedStateResumesBitForBit) {
  test_envs::expect_resumes_bit_for_bit(kHumanoid, 9, 13);
}

std::string model_error(const core::Kwargs& kwargs) {
  try {
    make(kHumanoid, kwargs);
  } catch (const MujocoModelError& e) {
    return e.what();
  }
  return "(no MujocoModelError)";
}

TEST(Humanoid, MissingModelNamesTheFileAndThePackage) {
  core::Kwargs kwargs;
  kwargs.set("model_path", std::string("/nonexistent/humanoid.xml"));
  const std::string what = model_error(kwargs);
  EXPECT_NE(what.find("/nonexistent/humanoid.xml"), std::string::npos) << what;
  EXPECT_NE(what.find("libmujoco-samples"), std::string::npos) << what;
}

TEST(Humanoid, ModelWithoutAFreeRootIsRefused) {
  const std::string path = ::testing::TempDir() + "hinged_robot.xml";
  std::ofstream(path)
      << "<mujoco><worldbody><body><joint name=\"j\"/><geom size=\"0.1\"/></body>"
         "</worldbody><actuator><motor joint=\"j\" ctrllimited=\"true\" ctrlrange=\"-1 1\"/>"
         "</actuator></mujoco>\n";
  core::Kwargs kwargs;
  kwargs.set("model_path", path);
  const std::string what = model_error(kwargs);
  EXPECT_NE(what.find(path), std::string::npos) << what;
  EXPECT_NE(what.find("free joint"), std::string::npos) << what;
  std::remove(path.c_str());
}

// ---------------------------------------------------------------------------------------------
// Kwargs of both

struct BadKwarg {
  const char* env;
  const char* key;
  std::vector<std::string> texts;  // one for a scalar
};

class RefusedKwarg : public ::testing::TestWithParam<BadKwarg> {};

TEST_P(RefusedKwarg, NamesTheKey) {
  const BadKwarg& bad = GetParam();
  core::Kwargs kwargs("env.kwargs", "walker.yaml:3:3");
  if (bad.texts.size() == 1) {
    kwargs.set(bad.key, bad.texts[0], "walker.yaml:4:5");
  } else {
    kwargs.set_list(bad.key, bad.texts, "walker.yaml:4:5");
  }
  try {
    make(bad.env, kwargs);
    FAIL() << "accepted";
  } catch (const core::KwargError& e) {
    EXPECT_NE(std::string(e.what()).find(bad.key), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("walker.yaml:4:5"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Walkers, RefusedKwarg,
    ::testing::Values(BadKwarg{kHopper, "forward_reward_weight", {".nan"}},
                      BadKwarg{kHopper, "ctrl_cost_weight", {"-0.001"}},
                      BadKwarg{kHopper, "healthy_reward", {".inf"}},
                      BadKwarg{kHopper, "reset_noise_scale", {"0.5"}},
                      BadKwarg{kHopper, "healthy_z_range", {"1.2", ".inf"}},  // above standing
                      BadKwarg{kHopper, "healthy_z_range", {"0.5"}},
                      BadKwarg{kHumanoid, "forward_reward_weight", {"-.inf"}},
                      BadKwarg{kHumanoid, "ctrl_cost_weight", {"-1"}},
                      BadKwarg{kHumanoid, "healthy_reward", {"-5"}},
                      BadKwarg{kHumanoid, "reset_noise_scale", {"-0.01"}},
                      BadKwarg{kHumanoid, "healthy_z_range", {"1.0", "1.2"}}),
    [](const ::testing::TestParamInfo<BadKwarg>& info) {
      return std::string(info.param.env).substr(5, 3) + "_" + info.param.key + "_" +
             std::to_string(info.index);
    });

}  // namespace
}  // namespace mnrl::envs
