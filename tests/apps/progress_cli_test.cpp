// What a run reports about itself: its metrics' cadence, the progress lines, run_info.yaml and
// summary.yaml, as a user sees them from `mnrl train`.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_test_fixture.h"

namespace {
using namespace mnrl_cli_test;

// The number of rows of metric `name` in the metrics.csv at `path`.
int rows_named(const fs::path& path, const std::string& name) {
  std::ifstream in(path);
  int rows = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.find("," + name + ",") != std::string::npos) ++rows;
  }
  return rows;
}

using ProgressCliTest = CliTest;

// SAC, TD3 and DDPG update at every env step but report their losses every 100: charts/SPS
// was written at every update (19,745 rows against 198 of each loss in a 20k-step run).
TEST_F(ProgressCliTest, OffPolicyAgentsWriteStepsPerSecondWithTheirLosses) {
  for (const std::string algo : {"sac", "td3", "ddpg"}) {
    const auto r =
        run("train " MNRL_SOURCE_DIR "/configs/pendulum_" + algo +
            ".yaml --set train.total_steps=1000 --set " + algo + ".learning_starts=100 --set " +
            algo + ".batch_size=32 --set train.eval_episodes=1 --progress none --run-dir " + algo);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const fs::path metrics = dir_ / algo / "metrics.csv";
    const int losses = rows_named(metrics, "losses/qf1_loss");
    EXPECT_GE(losses, 8) << algo;
    EXPECT_EQ(rows_named(metrics, "charts/SPS"), losses) << algo;
  }
}

// run_info.yaml recorded neither the job's ranks nor how it was launched.
TEST_F(ProgressCliTest, RunInfoRecordsTheRanksAndTheLaunch) {
  const std::string train = "train " MNRL_SOURCE_DIR
                            "/configs/cartpole_ppo.yaml --set "
                            "train.total_steps=512 --set train.eval_episodes=1 --progress none";
  ASSERT_EQ(run(train + " --run-dir one").exit_code, 0);
  const std::string one = read_file(dir_ / "one" / "run_info.yaml");
  EXPECT_NE(one.find("\nranks: 1\n"), std::string::npos) << one;
  EXPECT_EQ(one.find("launch:"), std::string::npos) << one;  // started by no launcher

  if (run_shell("command -v mpirun").exit_code != 0) GTEST_SKIP() << "no mpirun";
  const auto r = run_shell(
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun "
      "--oversubscribe -np 2 '" MNRL_BINARY "' " +
      train + " --run-dir two");
  if (r.output.find("8 envs x 2 ranks (mpi)") == std::string::npos) {
    GTEST_SKIP() << "mnrl built without MPI: " << r.output;
  }
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string two = read_file(dir_ / "two" / "run_info.yaml");
  EXPECT_NE(two.find("\nranks: 2\n"), std::string::npos) << two;
  EXPECT_NE(two.find("\nlaunch: \"mpirun --oversubscribe -np 2 "), std::string::npos) << two;
}

// train.stop_at_return ends the run at the first evaluation that reaches it, as SB3's
// StopTrainingOnRewardThreshold: recorded in summary.yaml, with a checkpoint there.
TEST_F(ProgressCliTest, StopsAtTheReturnAsked) {
  const auto r = run("train " MNRL_SOURCE_DIR
                     "/configs/cartpole_ppo.yaml --set "
                     "train.total_steps=100000 --set train.eval_interval=2048 --set "
                     "train.eval_episodes=5 --set train.stop_at_return=50 --progress none "
                     "--run-dir out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("stopped early at step "), std::string::npos) << r.output;
  const std::string summary = read_file(dir_ / "out" / "summary.yaml");
  EXPECT_NE(summary.find("interrupted: false"), std::string::npos) << summary;
  const auto at = summary.find("stopped_early:\n  at_step: ");
  ASSERT_NE(at, std::string::npos) << summary;
  const std::int64_t step = std::stoll(summary.substr(at + 26));
  EXPECT_LT(step, 100000);
  EXPECT_EQ(step % 2048, 0) << summary;
  const auto mean = summary.find("eval_mean_return: ", at);
  ASSERT_NE(mean, std::string::npos) << summary;
  EXPECT_GE(std::stod(summary.substr(mean + 18)), 50.0) << summary;
  char name[32];
  std::snprintf(name, sizeof name, "step_%012lld", static_cast<long long>(step));
  EXPECT_TRUE(fs::is_directory(dir_ / "out" / "checkpoints" / name)) << summary;
}

// With evaluations only at the end there is nothing to stop at: refused, naming the key.
TEST_F(ProgressCliTest, StopAtReturnWithoutEvaluationsIsRefused) {
  const auto config = write_config(
      "algo: ppo\nenv: {id: CartPole-v1}\n"
      "train: {total_steps: 4096, stop_at_return: 50}\n");
  const auto r = run("train x.yaml");
  expect_outcome(r, 2, "train.stop_at_return");
  EXPECT_NE(r.output.find("train.eval_interval"), std::string::npos) << r.output;
  EXPECT_TRUE(wrote_nothing_but(config));
}

}  // namespace
