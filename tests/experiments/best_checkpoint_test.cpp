// checkpoints/best: the policy of a run's best evaluation, kept apart from the checkpoints a
// run resumes from, playable by `mnrl eval`, and carried over a resume.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "experiments/training/agent_factory.h"
#include "experiments/checkpoints/best_checkpoint.h"
#include "experiments/evaluation/checkpoint_evaluation.h"
#include "experiments/training/training.h"
#include "recording_metrics.h"

namespace mnrl::experiments {
namespace {
namespace fs = std::filesystem;

class BestCheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    run_ = fs::temp_directory_path() /
           ("mnrl_best_checkpoint_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(run_);
    checkpoints_.run_dir = run_;
  }
  void TearDown() override { fs::remove_all(run_); }

  // CartPole PPO evaluated 4 times and at the end, one resumable checkpoint kept.
  ExperimentOptions options(const std::string& save_best = "true") const {
    return load_experiment(MNRL_SOURCE_DIR "/configs/cartpole_ppo.yaml",
                           {"train.total_steps=5120", "train.eval_interval=1024",
                            "train.eval_episodes=3", "checkpoint.keep=1",
                            "checkpoint.save_best=" + save_best});
  }

  double manifest_return() const {
    return Checkpoint::open(best_checkpoint_path(run_)).info().eval_mean_return.value();
  }

  fs::path run_;
  CheckpointSettings checkpoints_;
};

TEST_F(BestCheckpointTest, KeepsTheBestEvaluationsPolicyApartFromTheResumableCheckpoints) {
  RecordingMetrics metrics;
  const TrainingResult result = train(options(), metrics, &checkpoints_);
  ASSERT_EQ(metrics.count["eval/mean_return"], 5);
  ASSERT_TRUE(result.best.has_value());
  EXPECT_EQ(result.best->checkpoint, best_checkpoint_path(run_));
  EXPECT_EQ(result.best->mean_return, metrics.best["eval/mean_return"]);
  const Checkpoint best = Checkpoint::open(result.best->checkpoint);
  EXPECT_EQ(best.info().step, result.best->step);
  EXPECT_EQ(best.info().eval_mean_return, result.best->mean_return);
  EXPECT_TRUE(best.has("agent.state"));
  EXPECT_FALSE(best.has("training.state"));  // a policy, not a run to resume

  // Pruning (keep 1) and resuming see the step_ checkpoints only.
  ASSERT_EQ(list_checkpoints(run_).size(), 1u);
  EXPECT_EQ(list_checkpoints(run_).front().filename(), "step_000000005120");
  EXPECT_EQ(open_latest_checkpoint(run_, [](const std::string&) {}).info().step, 5120);

  const CheckpointEvaluation played =
      evaluate_checkpoint(result.best->checkpoint, 4, 99, false, [](const std::string&) {});
  EXPECT_EQ(played.result.episodes, 4);
  EXPECT_EQ(played.checkpoint, result.best->checkpoint);
}

TEST_F(BestCheckpointTest, AResumedRunKeepsTheEarlierBestUntilAnEvaluationBeatsIt) {
  const ExperimentOptions experiment = options();
  RecordingMetrics metrics;
  const TrainingResult first = train(experiment, metrics, &checkpoints_);
  ASSERT_TRUE(first.best.has_value());
  const double earlier = first.best->mean_return;

  checkpoints_.resume_from = open_latest_checkpoint(run_, [](const std::string&) {});
  BestCheckpoint best(&checkpoints_, experiment);
  ASSERT_TRUE(best.best().has_value());
  EXPECT_EQ(best.best()->mean_return, earlier);
  EXPECT_EQ(best.best()->step, first.best->step);

  auto envs = envs::make_vector_env(experiment.env, 7);
  envs->reset();
  auto agent = make_agent(experiment, envs->spec());
  TrainingParts parts;
  parts.agents.push_back(agent.get());
  parts.envs.push_back(envs.get());
  EvaluationResult evaluation;
  evaluation.mean_return = earlier - 1.0;
  best.offer(6000, evaluation, parts);
  EXPECT_EQ(manifest_return(), earlier);
  EXPECT_EQ(best.best()->step, first.best->step);

  evaluation.mean_return = earlier + 1.0;
  best.offer(6144, evaluation, parts);
  EXPECT_EQ(manifest_return(), earlier + 1.0);
  EXPECT_EQ(Checkpoint::open(best_checkpoint_path(run_)).info().step, 6144);
  EXPECT_EQ(best.best()->step, 6144);
}

TEST_F(BestCheckpointTest, SaveBestFalseKeepsNone) {
  RecordingMetrics metrics;
  const TrainingResult result = train(options("false"), metrics, &checkpoints_);
  EXPECT_FALSE(result.best.has_value());
  EXPECT_FALSE(fs::exists(best_checkpoint_path(run_)));
  EXPECT_EQ(list_checkpoints(run_).size(), 1u);
}

}  // namespace
}  // namespace mnrl::experiments
