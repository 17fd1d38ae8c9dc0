// Bad input to the physics envs through `mnrl train`: a kwarg out of range, a missing or
// malformed MJCF model. Each is a config error (exit 2) naming the key, file or line, with
// nothing written. Skipped, with the reason, where the engine was not built.
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
