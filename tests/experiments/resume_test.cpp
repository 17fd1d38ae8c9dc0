// Exact resume: training to 2k steps in one go, and training to k, stopping, and resuming to
// 2k, give the same parameters, optimizer state, env states and returns, bit for bit.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "experiments/checkpoints/checkpoint.h"
#include "experiments/config/experiment_options.h"
#include "experiments/runs/training_run.h"
#include "run_files.h"

namespace mnrl::experiments {
namespace {
namespace fs = std::filesystem;

struct ResumeCase {
  std::string name;
  std::string config;
  std::vector<std::string> overrides;
  std::int64_t total_steps;
  std::int64_t checkpoint_interval;
};

// Test names show the case's name, not its bytes.
void PrintTo(const ResumeCase& c, std::ostream* out) { *out << c.name; }

class ResumeTest : public ::testing::TestWithParam<ResumeCase> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("mnrl_resume_test_" + std::to_string(::getpid()) + "_" + GetParam().name);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    fs::remove_all(dir_);
    std::fclose(quiet_);
  }

  fs::path dir_;
  std::FILE* quiet_ = std::fopen("/dev/null", "w");  // the console line
};

TEST_P(ResumeTest, StoppingAndResumingGivesTheSameRunBitForBit) {
  const ResumeCase& c = GetParam();
  std::vector<std::string> overrides = c.overrides;
  overrides.push_back("train.total_steps=" + std::to_string(c.total_steps));
  overrides.push_back("checkpoint.interval=" + std::to_string(c.checkpoint_interval));
  overrides.push_back("checkpoint.keep=100");
  const ExperimentOptions options =
      load_experiment(MNRL_SOURCE_DIR "/configs/" + c.config, overrides);

  // One go, with a checkpoint every interval.
  TrainingRunSettings settings;
  settings.console = quiet_;
  settings.run_dir = (dir_ / "whole").string();
  const auto whole = run_training(options, settings);
  ASSERT_FALSE(whole.training.interrupted);

  const auto resumed = resume_from_first_checkpoint(dir_ / "whole", dir_ / "resumed", settings);
  EXPECT_EQ(resumed.training.steps, whole.training.steps);
  EXPECT_EQ(resumed.training.final_evaluation.mean_return,
            whole.training.final_evaluation.mean_return);

  const fs::path a = list_checkpoints(dir_ / "whole").back();
  const fs::path b = list_checkpoints(dir_ / "resumed").back();
  EXPECT_EQ(a.filename(), b.filename());
  for (const char* file : {"agent.state", "envs.state", "replay.bin", "config.yaml"}) {
    if (!fs::exists(a / file)) continue;
    EXPECT_TRUE(read_file(a / file) == read_file(b / file)) << file << " differs";
  }
  EXPECT_EQ(metrics_without_times(dir_ / "resumed"), metrics_without_times(dir_ / "whole"));
  EXPECT_NE(read_file(dir_ / "resumed" / "run_info.yaml").find("resumed:"), std::string::npos);
}

std::vector<ResumeCase> resume_cases() {
  std::vector<ResumeCase> cases = {
      // Checkpoints fall mid-rollout (n_steps 32 x 8 envs = 256 steps per update).
      ResumeCase{"ppo", "cartpole_ppo.yaml", {"train.eval_interval=1000"}, 4000, 1000},
      ResumeCase{"a2c", "cartpole_a2c.yaml", {"train.eval_interval=1000"}, 3000, 1000},
      // Prioritized replay, n-step returns, dueling and double Q: every piece of DQN state;
      // a linear learning-rate schedule (as this and the off-policy cases: charts/learning_rate
      // is in the metrics compared).
      ResumeCase{
          "dqn",
          "cartpole_rainbowlite.yaml",
          {"train.eval_interval=1000", "dqn.learning_starts=500", "dqn.learning_rate=lin_2.3e-3"},
          4000,
          1000},
      // A return distribution whose steps draw fractions (IQN) and noisy nets, whose acting
      // and steps draw noise: the draws continue where they stopped.
      ResumeCase{
          "iqn_noisy",
          "cartpole_rainbowlite.yaml",
          {"train.eval_interval=1000", "dqn.learning_starts=500", "dqn.distributional=iqn",
           "dqn.quantile_samples=8", "dqn.target_quantile_samples=8",
           "dqn.policy_quantile_samples=8", "dqn.noisy=true", "network.hidden_sizes=[64,64]"},
          4000,
          1000},
      // Memory: each env's LSTM state and the rollout's stored states and episode starts, with
      // checkpoints mid-rollout and mid-episode; minibatches of 8-step sequences.
      ResumeCase{"ppo_lstm",
                 "cartpole_novel_ppo_lstm.yaml",
                 {"train.eval_interval=1000", "ppo.batch_size=64", "ppo.seq_len=8",
                  "network.recurrent.hidden_size=16"},
                 4000,
                 1000},
      // R2D2: each env's memory and sequence in progress, the stored sequences and their
      // priorities, with checkpoints mid-sequence and mid-episode.
      ResumeCase{"r2d2",
                 "cartpole_novel_r2d2.yaml",
                 {"train.eval_interval=1000", "r2d2.learning_starts=500",
                  "network.recurrent.hidden_size=16", "r2d2.batch_size=8"},
                 4000,
                 1000},
      // R2D2 over MinAtar's uint8 frames through the convolutional encoder: sequences and the
      // open ones stored as bytes.
      ResumeCase{"r2d2_minatar",
                 "cartpole_novel_r2d2.yaml",
                 {"train.eval_interval=1000", "r2d2.learning_starts=500", "env.id=MinAtar/Breakout-v1",
                  "env.wrappers=[]", "network.encoder=minatar_cnn", "network.hidden_sizes=[16]",
                  "network.recurrent.hidden_size=16", "r2d2.batch_size=8"},
                 4000,
                 1000},
      // IMPALA in one process: its trajectories' memories as PPO's rollout's.
      ResumeCase{"impala_lstm",
                 "cartpole_novel_impala_lstm.yaml",
                 {"train.eval_interval=1000", "network.recurrent.hidden_size=16"},
                 4000,
                 1000},
      // Observation and reward normalization statistics with a Box action space, and gSDE's
      // exploration matrices: checkpoints fall mid-rollout (500 steps per env, 48 per
      // rollout) between two draws (every 7 steps), so the next actions use the saved ones.
      ResumeCase{"ppo_normalized_gsde",
                 "mountaincarcontinuous_ppo.yaml",
                 {"train.eval_interval=1000", "env.num_envs=2", "ppo.n_steps=48",
                  "ppo.batch_size=32", "ppo.sde_sample_freq=7"},
                 4000,
                 1000},
      // A2C with gSDE drawn once per rollout (125 steps per env, 8 per rollout).
      ResumeCase{"a2c_gsde", "pendulum_a2c.yaml", {"train.eval_interval=1000"}, 4000, 1000},
      // Actor, critics, targets, log alpha and their three optimizers; the reparameterization
      // draws; pending 2-step returns at a checkpoint mid-episode; observation and reward
      // normalization in front of the replay.
      ResumeCase{"sac",
                 "pendulum_sac.yaml",
                 {"train.eval_interval=1000", "sac.learning_starts=500", "sac.batch_size=32",
                  "sac.n_step=2", "sac.learning_rate=lin_1e-3", "network.hidden_sizes=[32,32]",
                  "env.wrappers=[normalize_observation, normalize_reward]"},
                 3300,
                 1100},
      // gSDE's exploration matrices, drawn every 7 steps and at each update (every 4 steps).
      ResumeCase{"sac_gsde",
                 "mountaincarcontinuous_sac.yaml",
                 {"train.eval_interval=1000", "sac.learning_starts=500", "sac.batch_size=32",
                  "sac.train_freq=4", "sac.gradient_steps=2", "sac.sde_sample_freq=7"},
                 3300,
                 1100},
      // The target actor, delayed updates (checkpoints fall between two actor steps) and the
      // Ornstein-Uhlenbeck noise's state mid-episode (episodes of 200 steps).
      ResumeCase{"td3",
                 "pendulum_td3.yaml",
                 {"train.eval_interval=1000", "td3.learning_starts=500", "td3.batch_size=32",
                  "td3.policy_delay=3", "td3.action_noise=ornstein_uhlenbeck",
                  "td3.lr_schedule=linear", "network.hidden_sizes=[32,32]"},
                 3300,
                 1100}};
#if MNRL_WITH_BOX2D
  // A Box2D env's state is its episode replayed (EpisodeReplay): checkpoints fall mid-episode,
  // in the wind, whose phase is part of it.
  cases.push_back(ResumeCase{"ppo_lunarlander",
                             "lunarlander_ppo.yaml",
                             {"train.eval_interval=1000", "env.num_envs=2", "ppo.n_steps=64",
                              "env.kwargs={enable_wind: true}"},
                             4000,
                             1000});
#endif
#if MNRL_WITH_MUJOCO
  // A MuJoCo env's simulation state (qpos, qvel, warm start) behind observation and reward
  // normalization.
  cases.push_back(ResumeCase{"ppo_hopper",
                             "hopper_ppo.yaml",
                             {"train.eval_interval=1000", "env.num_envs=2", "ppo.n_steps=64"},
                             4000,
                             1000});
#endif
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Agents, ResumeTest, ::testing::ValuesIn(resume_cases()),
                         [](const auto& info) { return info.param.name; });

// checkpoint.replay_buffer: false leaves the buffer out; the resumed DQN refills it to
// learning_starts before it learns again, instead of training on a handful of transitions.
TEST(DqnResumeTest, WithoutTheReplayBufferRefillsBeforeLearning) {
  const fs::path dir =
      fs::temp_directory_path() / ("mnrl_dqn_resume_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const ExperimentOptions options = load_experiment(
      MNRL_SOURCE_DIR "/configs/cartpole_dqn.yaml",
      {"train.total_steps=6000", "train.eval_episodes=2", "dqn.learning_starts=1000",
       "checkpoint.interval=3000", "checkpoint.replay_buffer=false"});
  std::FILE* quiet = std::fopen("/dev/null", "w");
  TrainingRunSettings settings;
  settings.console = quiet;
  settings.run_dir = dir.string();
  run_training(options, settings);
  const auto checkpoints = list_checkpoints(dir);
  ASSERT_EQ(checkpoints.size(), 2u);
  EXPECT_FALSE(Checkpoint::open(checkpoints[0]).has("replay.bin"));
  fs::remove_all(checkpoints[1]);

  const auto resumed =
      resume_training(dir, settings, [](const std::string& why) { FAIL() << why; });
  std::fclose(quiet);
  EXPECT_EQ(resumed.training.steps, 6000);
  // The buffer size reported by the first update after the resume (at step > 3000).
  std::istringstream rows(read_file(dir / "metrics.csv"));
  std::string line;
  double first_size = -1;
  while (first_size < 0 && std::getline(rows, line)) {
    const auto first = line.find(',');
    if (line.find(",charts/buffer_size,") == std::string::npos) continue;
    if (std::stoll(line.substr(0, first)) <= 3000) continue;
    first_size = std::stod(line.substr(line.rfind(',') + 1));
  }
  EXPECT_GE(first_size, 1000.0);
  fs::remove_all(dir);
}

// replay.bin in the format mnrl wrote before every state file became a state stream (it began
// "MNRLRPLB") is refused by name, not misread.
TEST(DqnResumeTest, AReplayFileOfTheEarlierFormatIsRefusedByName) {
  const fs::path dir =
      fs::temp_directory_path() / ("mnrl_dqn_old_replay_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const ExperimentOptions options =
      load_experiment(MNRL_SOURCE_DIR "/configs/cartpole_dqn.yaml",
                      {"train.total_steps=2000", "train.eval_episodes=1",
                       "checkpoint.interval=1000", "checkpoint.keep=2"});
  std::FILE* quiet = std::fopen("/dev/null", "w");
  TrainingRunSettings settings;
  settings.console = quiet;
  settings.run_dir = dir.string();
  run_training(options, settings);
  const auto checkpoints = list_checkpoints(dir);
  ASSERT_EQ(checkpoints.size(), 2u);
  fs::remove_all(checkpoints[1]);
  const Checkpoint saved = Checkpoint::open(checkpoints[0]);
  ASSERT_TRUE(saved.has("replay.bin"));
  {  // The same checkpoint, with an intact manifest, holding a replay.bin of the old format.
    CheckpointWriter writer(dir, saved.info());
    for (const auto& entry : fs::directory_iterator(saved.directory())) {
      const std::string name = entry.path().filename().string();
      if (name == "manifest.yaml") continue;
      writer.add(name,
                 name == "replay.bin" ? "MNRLRPLB" + std::string(52, '\0') : saved.read(name));
    }
    writer.commit("2026-11-25T00:00:00Z");
  }
  try {
    resume_training(dir, settings, [](const std::string& why) { FAIL() << why; });
    ADD_FAILURE() << "resumed from a replay.bin of the earlier format";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("its replay.bin is in the replay format of an earlier "
                                         "mnrl (\"MNRLRPLB\")"),
              std::string::npos)
        << e.what();
  }
  std::fclose(quiet);
  fs::remove_all(dir);
}

// A3C's workers interleave freely, so its resume is not bitwise; but scheduled checkpoints
// (workers paused) and resuming from one work, and training continues from the saved step.
TEST(A3cResumeTest, ResumesFromAScheduledCheckpoint) {
  const fs::path dir =
      fs::temp_directory_path() / ("mnrl_a3c_resume_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const ExperimentOptions options = load_experiment(
      MNRL_SOURCE_DIR "/configs/cartpole_a3c.yaml",
      {"train.total_steps=12000", "checkpoint.interval=4000", "checkpoint.keep=10"});
  std::FILE* quiet = std::fopen("/dev/null", "w");
  TrainingRunSettings settings;
  settings.console = quiet;
  settings.run_dir = dir.string();
  run_training(options, settings);
  auto checkpoints = list_checkpoints(dir);
  ASSERT_EQ(checkpoints.size(), 3u);  // two scheduled, one at the end
  const std::int64_t first_step = Checkpoint::open(checkpoints[0]).info().step;
  EXPECT_GE(first_step, 4000);
  EXPECT_LT(first_step, 8000);
  for (std::size_t i = 1; i < checkpoints.size(); ++i) fs::remove_all(checkpoints[i]);

  const auto resumed =
      resume_training(dir, settings, [](const std::string& why) { FAIL() << why; });
  std::fclose(quiet);
  EXPECT_GE(resumed.training.steps, 12000);
  EXPECT_FALSE(resumed.training.interrupted);
  EXPECT_GE(Checkpoint::open(list_checkpoints(dir).back()).info().step, 12000);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mnrl::experiments
