// The DQN family must reach the scores with the shipped configs within fixed step
// budgets, for seeds 1-3. "Within the budget" is read as: an evaluation (10 greedy episodes,
// every 10k steps and at the end) reaches the score by then. DQN's greedy policy is known to
// swing after it has solved a task (the final evaluations are in docs/BENCHMARKS.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "agents/dqn/dqn_options.h"
#include "experiments/config/experiment_options.h"
#include "experiments/training/training.h"
#include "recording_metrics.h"

namespace mnrl::experiments {
namespace {

// Trains `config` with `seed` for its own total_steps (checked against `budget`) and returns
// the metrics, after checking that the DQN statistics were reported.
RecordingMetrics train_dqn(const std::string& config, int seed, std::int64_t budget,
                           std::vector<std::string> overrides = {}) {
  overrides.push_back("seed=" + std::to_string(seed));
  overrides.push_back("train.eval_interval=10000");
  const auto options = load_experiment(MNRL_SOURCE_DIR "/configs/" + config, overrides);
  EXPECT_EQ(options.algo, "dqn");
  EXPECT_EQ(options.train.total_steps, budget);
  RecordingMetrics metrics;
  const TrainingResult result = train(options, metrics);
  EXPECT_EQ(result.steps, budget);
  EXPECT_FALSE(result.interrupted);
  EXPECT_EQ(metrics.count["eval/mean_return"], static_cast<int>(budget / 10000));
  for (const char* name : {"losses/td_loss", "losses/q_values", "charts/epsilon"}) {
    EXPECT_GT(metrics.count[name], 0) << name;
  }
  const auto& dqn = options.hyperparameters<agents::DqnOptions>();
  EXPECT_DOUBLE_EQ(metrics.last["charts/epsilon"], dqn.exploration_final_eps);
  // The buffer holds every transition up to its capacity; the size was last reported at the
  // last update, at most train_freq steps (and n - 1 pending n-step transitions) before the end.
  EXPECT_NEAR(metrics.last["charts/buffer_size"],
              static_cast<double>(std::min(budget, dqn.buffer_size)),
              static_cast<double>(dqn.train_freq + dqn.n_step));
  return metrics;
}

// rl-zoo's CartPole hyperparameters, run for the 100k-step budget: solved (>= 475) on at
// least two of the three seeds.
TEST(DqnCartPoleLearningTest, SolvesOnTwoOfThreeSeedsWithin100kSteps) {
  int solved = 0;
  for (int seed : {1, 2, 3}) {
    const auto metrics =
        train_dqn("cartpole_dqn.yaml", seed, 100000, {"train.total_steps=100000"});
    const double best = metrics.best.at("eval/mean_return");
    solved += best >= 475.0;
    RecordProperty("seed" + std::to_string(seed) + "_best_eval", std::to_string(best));
    print_learning_result("dqn CartPole-v1 seed " + std::to_string(seed) + " best evaluation",
                          best);
  }
  EXPECT_GE(solved, 2);
}

class DqnAcrobotLearningTest : public ::testing::TestWithParam<int> {};

TEST_P(DqnAcrobotLearningTest, ReachesMinus100Within100kSteps) {
  const auto metrics = train_dqn("acrobot_dqn.yaml", GetParam(), 100000);
  print_learning_result("dqn Acrobot-v1 seed " + std::to_string(GetParam()) + " best evaluation",
                        metrics.best.at("eval/mean_return"));
  EXPECT_GE(metrics.best.at("eval/mean_return"), -100.0);
}

INSTANTIATE_TEST_SUITE_P(Seeds, DqnAcrobotLearningTest, ::testing::Values(1, 2, 3));

class DqnMountainCarLearningTest : public ::testing::TestWithParam<int> {};

TEST_P(DqnMountainCarLearningTest, ReachesMinus120Within120kSteps) {
  const auto metrics = train_dqn("mountaincar_dqn.yaml", GetParam(), 120000);
  print_learning_result(
      "dqn MountainCar-v0 seed " + std::to_string(GetParam()) + " best evaluation",
      metrics.best.at("eval/mean_return"));
  EXPECT_GE(metrics.best.at("eval/mean_return"), -120.0);
}

INSTANTIATE_TEST_SUITE_P(Seeds, DqnMountainCarLearningTest, ::testing::Values(1, 2, 3));

}  // namespace
}  // namespace mnrl::experiments
