// PPO must solve CartPole-v1 and Acrobot-v1 with the shipped configs, within a fixed step
// budget, for each of the seeds the README promises.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "agents/ppo/ppo_options.h"
#include "experiments/evaluation/checkpoint_evaluation.h"
#include "experiments/config/experiment_options.h"
#include "experiments/training/training.h"
#include "recording_metrics.h"

namespace mnrl::experiments {
namespace {
namespace fs = std::filesystem;

class PpoCartPoleLearningTest : public ::testing::TestWithParam<int> {};

TEST_P(PpoCartPoleLearningTest, SolvesWithinBudget) {
  const auto options = load_experiment(MNRL_SOURCE_DIR "/configs/cartpole_ppo.yaml",
                                       {"seed=" + std::to_string(GetParam())});
  ASSERT_EQ(options.train.total_steps, 100000);
  RecordingMetrics metrics;
  const TrainingResult result = train(options, metrics);
  EXPECT_EQ(result.steps, 100000);
  EXPECT_FALSE(result.interrupted);
  EXPECT_EQ(result.final_evaluation.episodes, 10);
  print_learning_result("ppo CartPole-v1 seed " + std::to_string(GetParam()),
                        result.final_evaluation.mean_return);
  EXPECT_GE(result.final_evaluation.mean_return, 475.0);
  // 100k steps / (32 steps x 8 envs) rollouts, 20 epochs of one minibatch each.
  EXPECT_EQ(metrics.count["losses/policy_loss"], 100000 / 256);
  EXPECT_NEAR(metrics.last["charts/learning_rate"], 1e-3 * (1.0 - 99840.0 / 100000.0), 1e-9);
}

INSTANTIATE_TEST_SUITE_P(Seeds, PpoCartPoleLearningTest, ::testing::Values(1, 2, 3));

// Memory: CartPoleNoVel-v1 (CartPole without its velocities) with the shipped recurrent config
// reaches 475 (CartPole's solved threshold) within rl-zoo's ppo_lstm budget, 100k steps, on every
// seed: an evaluation (10 greedy episodes every 10k steps) gets there, and the run stops at it
// (train.stop_at_return), as the DQN tests read "within the budget". The same PPO without memory
// does not get near (the next test): it is the memory that solves it.
class RecurrentPpoCartPoleNoVelLearningTest : public ::testing::TestWithParam<int> {};

TEST_P(RecurrentPpoCartPoleNoVelLearningTest, SolvesWithAnLstmWithinBudget) {
  const auto options = load_experiment(MNRL_SOURCE_DIR "/configs/cartpole_novel_ppo_lstm.yaml",
                                       {"seed=" + std::to_string(GetParam()),
                                        "train.eval_interval=10000", "train.stop_at_return=475"});
  ASSERT_EQ(options.train.total_steps, 100000);
  ASSERT_EQ(options.network.recurrent.type, "lstm");
  RecordingMetrics metrics;
  const TrainingResult result = train(options, metrics);
  print_learning_result("ppo lstm CartPoleNoVel-v1 seed " + std::to_string(GetParam()),
                        metrics.best.at("eval/mean_return"));
  ASSERT_TRUE(result.stopped_early.has_value());
  EXPECT_GE(result.stopped_early->mean_return, 475.0);
  EXPECT_LE(result.steps, 100000);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RecurrentPpoCartPoleNoVelLearningTest, ::testing::Values(1, 2, 3));

TEST(RecurrentPpoCartPoleNoVelLearningTest, WithoutMemoryPpoFailsAtTheSameBudget) {
  const auto options =
      load_experiment(MNRL_SOURCE_DIR "/configs/cartpole_novel_ppo_lstm.yaml",
                      {"network.recurrent.type=none", "train.eval_interval=10000"});
  RecordingMetrics metrics;
  const TrainingResult result = train(options, metrics);
  EXPECT_EQ(result.steps, 100000);
  print_learning_result("ppo without memory CartPoleNoVel-v1", metrics.best.at("eval/mean_return"));
  EXPECT_LT(metrics.best.at("eval/mean_return"), 150.0);
}

// Acrobot-v1 with rl-zoo's config, observation and reward normalization included, reaches
// Gymnasium's solved threshold (-100) within 150k steps (rl-zoo reports -75 at 1M).
class PpoAcrobotLearningTest : public ::testing::TestWithParam<int> {};

TEST_P(PpoAcrobotLearningTest, SolvesWithNormalizationWrappers) {
  const auto options = load_experiment(
      MNRL_SOURCE_DIR "/configs/acrobot_ppo.yaml",
      {"seed=" + std::to_string(GetParam()), "train.total_steps=150000", "train.eval_interval=0"});
  ASSERT_EQ(options.env.wrappers.size(), 2u);
  RecordingMetrics metrics;
  const TrainingResult result = train(options, metrics);
  EXPECT_EQ(result.final_evaluation.episodes, 10);
  print_learning_result("ppo Acrobot-v1 seed " + std::to_string(GetParam()),
                        result.final_evaluation.mean_return);
  EXPECT_GE(result.final_evaluation.mean_return, -100.0);
}

INSTANTIATE_TEST_SUITE_P(Seeds, PpoAcrobotLearningTest, ::testing::Values(1, 2, 3));

// Continuous actions with gSDE exploration: Pendulum-v1 reaches -200 at 100k steps (rl-zoo
// reports -172 at 100k). The final policy is scored over 100 episodes: a good policy's return
// varies by ~90 with the start state, so 10 episodes would leave a standard error near 30.
class PpoPendulumLearningTest : public ::testing::TestWithParam<int> {};

TEST_P(PpoPendulumLearningTest, ReachesMinus200WithGsdeWithin100kSteps) {
  const auto options =
      load_experiment(MNRL_SOURCE_DIR "/configs/pendulum_ppo.yaml",
                      {"seed=" + std::to_string(GetParam()), "train.eval_interval=0"});
  ASSERT_EQ(options.train.total_steps, 100000);
  ASSERT_TRUE(options.hyperparameters<agents::PpoOptions>().use_sde);
  ASSERT_EQ(options.train.eval_episodes, 100);
  RecordingMetrics metrics;
  const TrainingResult result = train(options, metrics);
  EXPECT_EQ(result.final_evaluation.episodes, 100);
  print_learning_result("ppo Pendulum-v1 seed " + std::to_string(GetParam()),
                        result.final_evaluation.mean_return);
  EXPECT_GE(result.final_evaluation.mean_return, -200.0);
}

INSTANTIATE_TEST_SUITE_P(Seeds, PpoPendulumLearningTest, ::testing::Values(1, 2, 3));

// MountainCarContinuous-v0's goal (+100) must be found by exploring: rl-zoo's gSDE config
// reaches 85 at 20k steps (rl-zoo reports 88.3, from one run). PPO's greedy policy flips
// between reaching the goal (~95) and rocking short of it (~0) until the very end: on 4
// roundings x 6 seeds, 5 of 24 last iterates ended below 85, while every run had a policy above
// 89 on 100 fresh episodes (docs/BENCHMARKS.md). So, as rl-zoo keeps its best model, the config
// evaluates every 2k steps and keeps the best policy (checkpoints/best); the test plays that
// checkpoint again on 100 starts the choice never saw.
class PpoMountainCarContinuousLearningTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    run_dir_ = fs::temp_directory_path() /
               ("mnrl_mcc_" + std::to_string(::getpid()) + "_" + std::to_string(GetParam()));
    fs::remove_all(run_dir_);
  }
  void TearDown() override { fs::remove_all(run_dir_); }
  fs::path run_dir_;
};

TEST_P(PpoMountainCarContinuousLearningTest, ReachesTheGoalWithGsdeWithin20kSteps) {
  const auto options = load_experiment(MNRL_SOURCE_DIR "/configs/mountaincarcontinuous_ppo.yaml",
                                       {"seed=" + std::to_string(GetParam())});
  ASSERT_EQ(options.train.total_steps, 20000);
  ASSERT_TRUE(options.hyperparameters<agents::PpoOptions>().use_sde);
  RecordingMetrics metrics;
  CheckpointSettings checkpoints;
  checkpoints.run_dir = run_dir_;
  const TrainingResult result = train(options, metrics, &checkpoints);
  EXPECT_EQ(result.final_evaluation.episodes, 10);
  ASSERT_TRUE(result.best.has_value());
  EXPECT_EQ(result.best->mean_return, metrics.best["eval/mean_return"]);

  const CheckpointEvaluation fresh = evaluate_checkpoint(
      result.best->checkpoint, 100, 1000 + static_cast<std::uint64_t>(GetParam()),
      /*stochastic=*/false, [](const std::string&) {});
  print_learning_result("ppo MountainCarContinuous-v0 seed " + std::to_string(GetParam()) +
                            " best policy (step " + std::to_string(result.best->step) + ")",
                        fresh.result.mean_return);
  EXPECT_GE(fresh.result.mean_return, 85.0);
}

INSTANTIATE_TEST_SUITE_P(Seeds, PpoMountainCarContinuousLearningTest, ::testing::Values(1, 2, 3));

}  // namespace
}  // namespace mnrl::experiments
