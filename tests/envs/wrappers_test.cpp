// Env-level wrappers: ClipAction, RescaleAction, FrameStack.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "envs/cartpole.h"
#include "envs/clip_action.h"
#include "envs/frame_stack.h"
#include "envs/registry.h"
#include "envs/rescale_action.h"
#include "scripted_env.h"

namespace mnrl::envs {
namespace {

using test_envs::ScriptedEnv;

// A scripted env with a Box(2) action space in [-1, 1]; `raw` keeps a view of it.
std::unique_ptr<Env> scripted_box(const ScriptedEnv** raw) {
  auto env = std::make_unique<ScriptedEnv>(0, "Scripted-v0", 2);
  *raw = env.get();
  return env;
}

std::vector<float> last_values(const ScriptedEnv& env) {
  const ActionRef& action = env.last_action();
  return {action.values, action.values + action.size};
}

TEST(ClipActionTest, ClipsIntoTheInnerBoundsAndAcceptsAnyFiniteValue) {
  const ScriptedEnv* inner = nullptr;
  ClipAction env(scripted_box(&inner));
  const Box& space = std::get<Box>(env.spec().action_space);
  EXPECT_EQ(space.shape, (std::vector<std::int64_t>{2}));
  EXPECT_TRUE(std::isinf(space.low[0]) && space.low[0] < 0);
  EXPECT_TRUE(std::isinf(space.high[1]) && space.high[1] > 0);

  std::vector<float> obs(3);
  env.reset(obs.data(), 0);
  const std::vector<float> action = {5.0f, -0.25f};
  env.step({0, action.data(), 2}, obs.data());
  EXPECT_EQ(last_values(*inner), (std::vector<float>{1.0f, -0.25f}));
}

TEST(ClipActionTest, RejectsNanWrongSizeAndDiscreteSpaces) {
  const ScriptedEnv* inner = nullptr;
  ClipAction env(scripted_box(&inner));
  std::vector<float> obs(3);
  env.reset(obs.data(), 0);
  const std::vector<float> nan = {std::numeric_limits<float>::quiet_NaN(), 0.0f};
  EXPECT_THROW(env.step({0, nan.data(), 2}, obs.data()), std::invalid_argument);
  EXPECT_THROW(env.step({0, nan.data() + 1, 1}, obs.data()), std::invalid_argument);
  try {
    ClipAction discrete(std::make_unique<CartPole>());
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("ClipAction(CartPole-v1): action space must be a Box"),
              std::string::npos)
        << e.what();
  }
}

TEST(RescaleActionTest, MapsTheAgentRangeOntoTheEnvBoundsAndClips) {
  const ScriptedEnv* inner = nullptr;
  RescaleAction env(scripted_box(&inner), 0.0, 4.0);
  const Box& space = std::get<Box>(env.spec().action_space);
  EXPECT_EQ(space.low, (std::vector<float>{0.0f, 0.0f}));
  EXPECT_EQ(space.high, (std::vector<float>{4.0f, 4.0f}));

  std::vector<float> obs(3);
  env.reset(obs.data(), 0);
  const std::vector<float> ends = {0.0f, 4.0f};
  env.step({0, ends.data(), 2}, obs.data());
  EXPECT_EQ(last_values(*inner), (std::vector<float>{-1.0f, 1.0f}));
  const std::vector<float> inside_and_out = {1.0f, 9.0f};
  env.step({0, inside_and_out.data(), 2}, obs.data());
  EXPECT_EQ(last_values(*inner), (std::vector<float>{-0.5f, 1.0f}));
}

TEST(RescaleActionTest, RejectsBadRangesAndUnboundedSpaces) {
  const ScriptedEnv* inner = nullptr;
  EXPECT_THROW(RescaleAction(scripted_box(&inner), 1.0, 1.0), std::invalid_argument);
  EXPECT_THROW(RescaleAction(std::make_unique<ClipAction>(scripted_box(&inner)), -1.0, 1.0),
               std::invalid_argument);  // ClipAction's space is unbounded
  EXPECT_THROW(RescaleAction(std::make_unique<CartPole>(), -1.0, 1.0), std::invalid_argument);
}

TEST(FrameStackTest, StacksOldestFirstAndFillsOnReset) {
  FrameStack env(std::make_unique<ScriptedEnv>(), 3);
  const Box& space = std::get<Box>(env.spec().observation_space);
  EXPECT_EQ(space.shape, (std::vector<std::int64_t>{3, 3}));
  EXPECT_EQ(space.low.size(), 9u);
  EXPECT_EQ(space.high[8], 1e9f);

  // ScriptedEnv observes [episode, step, seed % 1000].
  std::vector<float> obs(9);
  env.reset(obs.data(), 7);
  EXPECT_EQ(obs, (std::vector<float>{1, 0, 7, 1, 0, 7, 1, 0, 7}));
  env.step({0, nullptr, 0}, obs.data());
  EXPECT_EQ(obs, (std::vector<float>{1, 0, 7, 1, 0, 7, 1, 1, 7}));
  env.step({0, nullptr, 0}, obs.data());
  env.step({0, nullptr, 0}, obs.data());
  EXPECT_EQ(obs, (std::vector<float>{1, 1, 7, 1, 2, 7, 1, 3, 7}));
  env.reset(obs.data(), std::nullopt);
  EXPECT_EQ(obs, (std::vector<float>{2, 0, -1, 2, 0, -1, 2, 0, -1}));
}

TEST(FrameStackTest, AFailedStepLeavesTheStackUnchanged) {
  FrameStack env(std::make_unique<CartPole>(), 2);
  std::vector<float> obs(8);
  env.reset(obs.data(), 3);
  env.step({1, nullptr, 0}, obs.data());
  const std::vector<float> before = obs;
  EXPECT_THROW(env.step({5, nullptr, 0}, obs.data()), std::invalid_argument);
  env.step({1, nullptr, 0}, obs.data());
  // The oldest frame now is the newest before the failed step.
  EXPECT_EQ(std::vector<float>(obs.begin(), obs.begin() + 4),
            std::vector<float>(before.begin() + 4, before.end()));
}

TEST(FrameStackTest, StacksImagesAsBytesOnTheirChannelAxis) {
  // MinAtar Breakout: a uint8 Box [4, 10, 10] of 0/1 cells.
  FrameStack env(Registry::global().make("MinAtar/Breakout-v1"), 3);
  const Box& space = std::get<Box>(env.spec().observation_space);
  EXPECT_EQ(space.shape, (std::vector<std::int64_t>{12, 10, 10}));
  EXPECT_EQ(space.dtype, Dtype::uint8);
  EXPECT_EQ(space.high.size(), 1200u);
  std::vector<std::uint8_t> stack(1200);
  env.reset(stack.data(), 1);
  std::vector<std::vector<std::uint8_t>> frames;  // the newest frame after each call
  frames.emplace_back(stack.end() - 400, stack.end());
  for (int k = 0; k < 3; ++k) {
    env.step({k == 0 ? 1 : 2, nullptr, 0}, stack.data());  // left, then right twice
    frames.emplace_back(stack.end() - 400, stack.end());
  }
  EXPECT_NE(frames[0], frames[1]) << "the game moved";
  // Oldest first: frames 1, 2, 3 of the episode.
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(std::vector<std::uint8_t>(stack.begin() + 400 * k, stack.begin() + 400 * (k + 1)),
              frames[static_cast<std::size_t>(k + 1)])
        << "slot " << k;
  }
}

TEST(FrameStackTest, RejectsZeroFrames) {
  EXPECT_THROW(FrameStack(std::make_unique<CartPole>(), 0), std::invalid_argument);
}

}  // namespace
}  // namespace mnrl::envs
