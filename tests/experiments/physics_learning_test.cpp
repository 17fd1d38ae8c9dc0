// Learning on the physics envs (envs/box2d, envs/mujoco) with the shipped configs, seeds 1-3,
// judged by the final evaluation (greedy actions, 10 episodes). Skipped, with the reason, in a
// build without the engine.
#include <gtest/gtest.h>

#include <string>

#include "experiments/config/experiment_options.h"
#include "experiments/training/training.h"
#include "recording_metrics.h"

namespace mnrl::experiments {
namespace {

// mnrl/InvertedPendulum-v0 (MuJoCo) balanced for the whole 1000 steps at 100k steps: 950 is
// Gymnasium's threshold for InvertedPendulum-v4.
class PpoInvertedPendulumLearningTest : public ::testing::TestWithParam<int> {};

TEST_P(PpoInvertedPendulumLearningTest, Reaches950Within100kSteps) {
#if MNRL_WITH_MUJOCO
  const auto options = load_experiment(MNRL_SOURCE_DIR "/configs/invertedpendulum_ppo.yaml",
                                       {"seed=" + std::to_string(GetParam())});
  ASSERT_EQ(options.train.total_steps, 100000);
  RecordingMetrics metrics;
  const TrainingResult result = train(options, metrics);
  print_learning_result("ppo mnrl/InvertedPendulum-v0 seed " + std::to_string(GetParam()),
                        result.final_evaluation.mean_return);
  EXPECT_GE(result.final_evaluation.mean_return, 950.0);
#else
  GTEST_SKIP() << "MuJoCo envs not built: libmujoco-dev was not found when mnrl was configured";
#endif
}

INSTANTIATE_TEST_SUITE_P(Seeds, PpoInvertedPendulumLearningTest, ::testing::Values(1, 2, 3));

// LunarLander-v2 (Box2D) with rl-zoo's PPO entry at its full 1M budget (about 25 s here):
// above 100, the bar for a learning test. At 1M the three seeds score 220-256
// (docs/BENCHMARKS.md; rl-zoo 242 +- 32), so 100 leaves room for other roundings; at 800k one
// seed is still near 100.
class PpoLunarLanderLearningTest : public ::testing::TestWithParam<int> {};

TEST_P(PpoLunarLanderLearningTest, Reaches100Within1MSteps) {
#if MNRL_WITH_BOX2D
  const auto options =
      load_experiment(MNRL_SOURCE_DIR "/configs/lunarlander_ppo.yaml",
                      {"seed=" + std::to_string(GetParam()), "train.eval_interval=0"});
  ASSERT_EQ(options.train.total_steps, 1000000);
  RecordingMetrics metrics;
  const TrainingResult result = train(options, metrics);
  print_learning_result("ppo LunarLander-v2 seed " + std::to_string(GetParam()),
                        result.final_evaluation.mean_return);
  EXPECT_GE(result.final_evaluation.mean_return, 100.0);
#else
  GTEST_SKIP() << "Box2D envs not built: libbox2d-dev was not found when mnrl was configured";
#endif
}

INSTANTIATE_TEST_SUITE_P(Seeds, PpoLunarLanderLearningTest, ::testing::Values(1, 2, 3));

}  // namespace
}  // namespace mnrl::experiments
