// A2C must solve CartPole-v1 with the shipped config (rl-zoo's) within its 500k-step budget.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "experiments/experiment_options.h"
#include "experiments/on_policy_training.h"

namespace mnrl::experiments {
namespace {

class CountingMetrics final : public MetricsSink {
 public:
  void scalar(std::int64_t, const std::string& name, double) override { ++count[name]; }
  std::map<std::string, int> count;
};

class A2cCartPoleLearningTest : public ::testing::TestWithParam<int> {};

TEST_P(A2cCartPoleLearningTest, SolvesWithinBudget) {
  const auto options =
      load_experiment(MNRL_SOURCE_DIR "/configs/cartpole_a2c.yaml",
                      {"seed=" + std::to_string(GetParam()), "train.eval_interval=0"});
  ASSERT_EQ(options.train.total_steps, 500000);
  CountingMetrics metrics;
  const TrainingResult result = train_on_policy(options, metrics);
  EXPECT_EQ(result.steps, 500000);
  EXPECT_GE(result.final_evaluation.mean_return, 475.0);
  // One update per rollout of 5 steps x 8 envs.
  EXPECT_EQ(metrics.count["losses/policy_loss"], 500000 / 40);
}

INSTANTIATE_TEST_SUITE_P(Seeds, A2cCartPoleLearningTest, ::testing::Values(1, 2, 3));

}  // namespace
}  // namespace mnrl::experiments
