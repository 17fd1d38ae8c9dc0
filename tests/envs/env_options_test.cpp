// env: sections with wrappers read from YAML, and the vector envs built from them.
#include "envs/env_options.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "envs/normalize_observation.h"
#include "envs/normalize_reward.h"

namespace mnrl::envs {
namespace {

EnvOptions read(const std::string& yaml) {
  const auto doc = core::ConfigDocument::parse_string(yaml, "env.yaml");
  EnvOptions options;
  doc.read_into(options);
  return options;
}

std::string check_error(const std::string& yaml) {
  try {
    check_wrappers(read(yaml).wrappers);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(EnvOptionsTest, ReadsWrappersWithTheirOwnKeys) {
  const EnvOptions options = read(
      "id: CartPole-v1\n"
      "num_envs: 4\n"
      "num_threads: 2\n"
      "wrappers:\n"
      "  - {type: frame_stack, num_frames: 3}\n"
      "  - normalize_observation\n"
      "  - {type: normalize_reward, gamma: 0.95, clip: 5}\n");
  ASSERT_EQ(options.wrappers.size(), 3u);
  EXPECT_EQ(options.wrappers[0].num_frames, 3);
  EXPECT_EQ(options.wrappers[1].type, "normalize_observation");
  EXPECT_EQ(options.wrappers[1].clip, 10.0);
  EXPECT_EQ(options.wrappers[2].gamma, 0.95);
  EXPECT_EQ(options.num_threads, 2);
  EXPECT_NO_THROW(check_wrappers(options.wrappers));

  // A key of another wrapper type is unknown here.
  try {
    read("wrappers:\n  - {type: frame_stack, gamma: 0.9}\n");
    FAIL() << "expected a ConfigError";
  } catch (const core::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("env.yaml:2:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("unknown key 'wrappers[0].gamma'"), std::string::npos)
        << e.what();
  }
}

TEST(EnvOptionsTest, ChecksTheWrapperList) {
  EXPECT_NE(check_error("wrappers: [{num_frames: 2}]\n").find("env.wrappers[0] has no type"),
            std::string::npos);
  EXPECT_NE(check_error("wrappers: [time_limit]\n")
                .find("env.wrappers[0] (time_limit) needs max_episode_steps >= 1"),
            std::string::npos);
  EXPECT_NE(check_error("wrappers: [normalize_observation, frame_stack]\n")
                .find("env.wrappers[1]: frame_stack wraps each env, so it must come before"),
            std::string::npos);
  EXPECT_NE(check_error("wrappers: [normalize_reward, normalize_reward]\n")
                .find("env.wrappers[1]: normalize_reward is listed twice"),
            std::string::npos);
  EXPECT_NE(check_error("wrappers: [{type: rescale_action, min_action: 1, max_action: 0}]\n")
                .find("needs min_action < max_action"),
            std::string::npos);
}

TEST(EnvOptionsTest, WritesWrappersBack) {
  EnvOptions options = read("wrappers: [{type: time_limit, max_episode_steps: 50}, clip_action]\n");
  const std::string yaml = core::to_yaml([&](core::ConfigVisitor& v) { options.visit(v); });
  EXPECT_NE(yaml.find("wrappers:\n  - type: time_limit\n    max_episode_steps: 50\n"
                      "  - type: clip_action\n"),
            std::string::npos)
      << yaml;
}

TEST(MakeVectorEnvTest, AppliesEnvWrappersInOrder) {
  EnvOptions options = read(
      "id: CartPole-v1\n"
      "num_envs: 2\n"
      "wrappers: [{type: time_limit, max_episode_steps: 5}, {type: frame_stack, num_frames: 2}]\n");
  auto envs = make_vector_env(options, 1);
  EXPECT_EQ(envs->observation_size(), 8);
  EXPECT_EQ(envs->spec().max_episode_steps, 5);
  envs->reset();
  const std::vector<std::int64_t> actions = {0, 1};
  for (int t = 0; t < 4; ++t) envs->step({actions.data(), nullptr, 2});
  envs->step({actions.data(), nullptr, 2});
  EXPECT_TRUE(envs->truncated()[0] || envs->terminated()[0]);
  EXPECT_TRUE(envs->truncated()[1] || envs->terminated()[1]);

  options.wrappers = read("wrappers: [frame_stack]\n").wrappers;
  options.id = "CartPole-v1";
  EXPECT_EQ(make_env(options)->spec().max_episode_steps, 500);
}

// A flicker before a frame stack obscures each stacked frame; its probability is checked where
// it is read.
TEST(MakeVectorEnvTest, FlickersFramesFromTheConfig) {
  EnvOptions options = read(
      "id: MinAtar/Breakout-v1\n"
      "wrappers: [{type: flicker, probability: 1}, {type: frame_stack, num_frames: 2}]\n");
  auto env = make_env(options);
  std::vector<std::uint8_t> observation(2 * 4 * 10 * 10, 7);
  env->reset(observation.data(), 1);
  EXPECT_EQ(observation, std::vector<std::uint8_t>(observation.size(), 0));

  try {
    read("wrappers: [{type: flicker, probability: 1.5}]\n");
    FAIL() << "expected a ConfigError";
  } catch (const core::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("wrappers[0].probability"), std::string::npos) << e.what();
  }
}

TEST(MakeVectorEnvTest, EvaluationEnvsReadTheTrainingStatisticsWithoutReturnNormalization) {
  const EnvOptions options = read(
      "id: CartPole-v1\n"
      "num_envs: 3\n"
      "wrappers: [normalize_observation, normalize_reward]\n");
  auto training = make_vector_env(options, 1);
  auto evaluation = make_evaluation_vector_env(options, 2, 2, *training);
  const auto* train_norm = training->find_transform<NormalizeObservation>();
  const auto* eval_norm = evaluation->find_transform<NormalizeObservation>();
  ASSERT_NE(train_norm, nullptr);
  ASSERT_NE(eval_norm, nullptr);
  EXPECT_EQ(train_norm->statistics(), eval_norm->statistics());
  EXPECT_EQ(evaluation->find_transform<NormalizeReward>(), nullptr);

  training->reset();
  const double count = train_norm->statistics()->count();
  evaluation->reset();
  const std::vector<std::int64_t> actions = {1, 0};
  for (int t = 0; t < 30; ++t) evaluation->step({actions.data(), nullptr, 2});
  EXPECT_EQ(train_norm->statistics()->count(), count);  // evaluation never updates them
  // Returns are the env's own: CartPole gives 1 per step.
  for (int t = 0; t < 200 && !evaluation->terminated()[0]; ++t) {
    evaluation->step({actions.data(), nullptr, 2});
  }
  ASSERT_TRUE(evaluation->terminated()[0]);
  EXPECT_EQ(evaluation->episode_returns()[0],
            static_cast<double>(evaluation->episode_lengths()[0]));
}

}  // namespace
}  // namespace mnrl::envs
