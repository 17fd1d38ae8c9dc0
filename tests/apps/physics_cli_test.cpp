// Bad input to the physics envs through `mnrl train`: a kwarg out of range, a missing or
// malformed MJCF model. Each is a config error (exit 2) naming the key, file or line, with
// nothing written. And their pictures through `mnrl eval --video`. Skipped, with the reason,
// where the engine (or giflib) was not built.
#include <string>

#include "tests/apps/cli_test_fixture.h"

namespace {
using namespace mnrl_cli_test;

TEST_F(CliTest, LunarLanderKwargOutOfRangeIsAConfigErrorAtItsLine) {
#if MNRL_WITH_BOX2D
  const auto config =
      write_config("algo: ppo\nenv:\n  id: LunarLander-v2\n  kwargs: {gravity: -20}\n");
  expect_outcome(run("train x.yaml"), 2,
                 "x.yaml:4:21: env.kwargs.gravity: must be in (-12, 0), as Gymnasium requires");
  EXPECT_TRUE(wrote_nothing_but(config));
#else
  GTEST_SKIP() << "Box2D envs not built: libbox2d-dev was not found when mnrl was configured";
#endif
}

// A physics env draws: its episodes are recorded (it was exit 2, "draws no pictures").
TEST_F(CliTest, EvalVideoRecordsLunarLander) {
#if MNRL_WITH_BOX2D
  if (!MNRL_WITH_GIF) GTEST_SKIP() << "mnrl was built without giflib: --video is refused";
  write_config(
      "algo: ppo\nenv: {id: LunarLander-v2, num_envs: 2}\n"
      "ppo: {n_steps: 16, batch_size: 32}\ntrain: {total_steps: 64, eval_episodes: 1}\n");
  ASSERT_EQ(run("train x.yaml --run-dir out").exit_code, 0);
  expect_outcome(run("eval out --episodes 1 --video lander.gif"), 0, "video: lander.gif");
  const std::string gif = read_file(dir_ / "lander.gif");
  ASSERT_EQ(gif.substr(0, 6), "GIF89a");
  // The logical screen: one 600 x 400 frame, little-endian.
  EXPECT_EQ(static_cast<unsigned char>(gif[6]) | static_cast<unsigned char>(gif[7]) << 8, 600);
  EXPECT_EQ(static_cast<unsigned char>(gif[8]) | static_cast<unsigned char>(gif[9]) << 8, 400);
  EXPECT_GT(gif.size(), 10000u);
#else
  GTEST_SKIP() << "Box2D envs not built: libbox2d-dev was not found when mnrl was configured";
#endif
}

// MuJoCo's picture is a projection of the geoms: no OpenGL context is needed.
TEST_F(CliTest, EvalVideoRecordsAMujocoEnv) {
#if MNRL_WITH_MUJOCO
  if (!MNRL_WITH_GIF) GTEST_SKIP() << "mnrl was built without giflib: --video is refused";
  write_config(
      "algo: ppo\nenv: {id: mnrl/InvertedPendulum-v0, num_envs: 2}\n"
      "ppo: {n_steps: 16, batch_size: 32}\ntrain: {total_steps: 64, eval_episodes: 1}\n");
  ASSERT_EQ(run("train x.yaml --run-dir out").exit_code, 0);
  expect_outcome(run("eval out --episodes 1 --video pendulum.gif"), 0, "video: pendulum.gif");
  const std::string gif = read_file(dir_ / "pendulum.gif");
  ASSERT_EQ(gif.substr(0, 6), "GIF89a");
  EXPECT_EQ(static_cast<unsigned char>(gif[6]) | static_cast<unsigned char>(gif[7]) << 8, 480);
  EXPECT_EQ(static_cast<unsigned char>(gif[8]) | static_cast<unsigned char>(gif[9]) << 8, 360);
  EXPECT_GT(gif.size(), 1000u);
#else
  GTEST_SKIP() << "MuJoCo envs not built: libmujoco-dev was not found when mnrl was configured";
#endif
}

TEST_F(CliTest, MissingOrMalformedMujocoModelIsAConfigError) {
#if MNRL_WITH_MUJOCO
  const auto config = write_config("algo: ppo\nenv:\n  id: mnrl/Humanoid-v0\n");
  expect_outcome(run("train x.yaml --set env.kwargs.model_path=/nonexistent/humanoid.xml"), 2,
                 "/nonexistent/humanoid.xml: cannot open the humanoid's MJCF model");
  EXPECT_TRUE(wrote_nothing_but(config));
  // The malformed model beside the config: the run may write nothing else.
  write_config("<mujoco>\n  <worldbody>\n    <body>\n  </worldbody>\n</mujoco>\n", "broken.xml");
  const Outcome r = run("train x.yaml --set env.kwargs.model_path=broken.xml");
  expect_outcome(r, 2, "broken.xml: MuJoCo cannot load this model: XML parse error");
  expect_outcome(r, 2, "Line number=3");
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 2u);
#else
  GTEST_SKIP() << "MuJoCo envs not built: libmujoco-dev was not found when mnrl was configured";
#endif
}

}  // namespace
