// The memory bound counts envs and compares with the memory available, before anything is
// written.
#include <gtest/gtest.h>

#include <string>

#include "cli_test_fixture.h"

namespace {
using namespace mnrl_cli_test;

// A MuJoCo Humanoid holds ~17 MB: 100,000 of them are refused, naming env.num_envs.
TEST_F(CliTest, EnvsCountInTheMemoryBound) {
  if (!MNRL_WITH_MUJOCO) GTEST_SKIP() << "built without MuJoCo";
  const auto r = run("train " MNRL_SOURCE_DIR
                     "/configs/cartpole_ppo.yaml --set env.id=mnrl/Humanoid-v0 "
                     "--set env.num_envs=100000");
  expect_outcome(r, 2, "env.num_envs: this run would need about");
  expect_outcome(r, 2, "100010 envs");
  expect_outcome(r, 2, "this machine has");
  EXPECT_TRUE(fs::is_empty(dir_)) << "nothing is written";
}

}  // namespace
