// mnrl tune: a search space checked before any trial, trials as runs of one study that several
// processes share, the best trial's config ready to train.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>
#include <set>
#include <string>
#include <vector>

#include "cli_test_fixture.h"

namespace {
using namespace mnrl_cli_test;

const std::string kTuneConfig = std::string(MNRL_SOURCE_DIR) + "/configs/cartpole_ppo.yaml";
// Short trials with evaluations along the way.
const std::string kShortTrials =
    " --set train.total_steps=2000 --set train.eval_interval=1000 --set train.eval_episodes=2";

void write_space(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

int count_of(const std::string& text, const std::string& part) {
  int count = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
    ++count;
  }
  return count;
}

using TuneCliTest = CliTest;

// A space naming an unknown key, an empty range, a categorical of one value, a value the config
// refuses, ...: exit 2 naming the file, line and key; nothing written.
TEST_F(TuneCliTest, BadSearchSpacesWriteNothing) {
  struct Case {
    std::string space, said;
  };
  const std::vector<Case> cases{
      {"ppo.learnin_rate: {type: uniform, low: 0.1, high: 0.2}\n",
       "line 1, ppo.learnin_rate: --set ppo.learnin_rate=0.1: unknown key"},
      {"ppo.gamma: {type: uniform, low: 0.99, high: 0.9}\n",
       "line 1, ppo.gamma: the range [0.99, 0.9] is empty"},
      {"ppo.n_steps: {type: categorical, choices: [512]}\n",
       "a categorical needs at least two choices"},
      {"ppo.n_steps: {type: categorical, choices: [512, 512]}\n", "given twice"},
      {"ppo.gamma: {type: normal, low: 0.9, high: 0.99}\n", "unknown type 'normal'"},
      {"ppo.n_epochs: {type: int, low: 1.5, high: 4}\n", "needs whole numbers"},
      {"ppo.learning_rate: {type: log_uniform, low: 0, high: 0.1}\n", "must lie above 0"},
      {"ppo.gamma: {type: uniform, low: 0.9, high: 0.99, step: 0.01}\n", "unknown field 'step'"},
      {"ppo.gamma: 0.9\n", "give a map with a type"},
      {"{}\n", "give a map of config keys"},
      {"ppo.learning_rate: {type: log_uniform, low: 1.0e-4, high: 1.0e-2}\nppo.gae_lambda: "
       "{type: uniform, low: 0.9, high: 1.5}\n",
       "line 2, ppo.gae_lambda: --set ppo.gae_lambda=1.5"}};
  for (const Case& c : cases) {
    write_space(dir_ / "space.yaml", c.space);
    const auto r = run("tune " + kTuneConfig + " --space space.yaml --study study" + kShortTrials);
    expect_outcome(r, 2, c.said);
    EXPECT_FALSE(fs::exists(dir_ / "study")) << c.space;
  }
  write_space(dir_ / "space.yaml", "ppo.gamma: {type: uniform, low: 0.9, high: 0.99}\n");
  expect_outcome(run("tune " + kTuneConfig +
                     " --space space.yaml --study study --set train.eval_interval=0"),
                 2,
                 "train.eval_interval is 0: the median pruner needs evaluations");
  EXPECT_FALSE(fs::exists(dir_ / "study"));
}

// Two processes on one study take each trial number once; the study ends with every trial
// complete, trials.csv, and best.yaml, which trains as it is. A third process with another
// config is refused, the study untouched.
TEST_F(TuneCliTest, TwoProcessesShareOneStudyAndTheBestConfigTrains) {
  write_space(dir_ / "space.yaml",
              "ppo.learning_rate: {type: log_uniform, low: 1.0e-4, high: 3.0e-3}\n"
              "ppo.n_epochs: {type: int, low: 2, high: 6}\n"
              "ppo.n_steps: {type: categorical, choices: [64, 128]}\n");
  const std::string tune = "tune " + kTuneConfig + " --space space.yaml --study study --trials 5 "
                           "--pruner none" + kShortTrials;
  const auto both = run_shell("cd '" + dir_.string() + "' && { '" MNRL_BINARY "' " + tune +
                              " > first.out 2>&1 & first=$!; '" MNRL_BINARY "' " + tune +
                              " > second.out 2>&1; second=$?; wait $first; echo exits $? $second; }");
  ASSERT_NE(both.output.find("exits 0 0"), std::string::npos) << both.output;
  const std::string first = read_file(dir_ / "first.out"), second = read_file(dir_ / "second.out");
  EXPECT_EQ(count_of(first, " started:") + count_of(second, " started:"), 5) << first << second;
  const std::string journal = read_file(dir_ / "study" / "journal.yaml");
  for (int trial = 0; trial < 5; ++trial) {
    EXPECT_EQ(count_of(journal, "event: \"created\", trial: " + std::to_string(trial) + ","), 1)
        << journal;
  }
  EXPECT_EQ(count_of(journal, "event: \"created\""), 5);
  EXPECT_EQ(count_of(journal, "state: \"complete\""), 5) << journal;
  const std::string trials = read_file(dir_ / "study" / "trials.csv");
  EXPECT_EQ(count_of(trials, ",complete,"), 5) << trials;
  // The pictures: PNGs naming what they show (gnuplot draws them when the last process ends).
  EXPECT_NE(read_file(dir_ / "study" / "objective.png").find("best so far"), std::string::npos);
  const std::string slices = read_file(dir_ / "study" / "slices.png");
  EXPECT_GT(slices.size(), 10000u);
  for (const char* key : {"ppo.learning_rate\n", "ppo.n_epochs\n", "ppo.n_steps\n"}) {
    EXPECT_NE(slices.find(key), std::string::npos) << key;
  }
  const auto best = run("train study/best.yaml --set train.total_steps=500 --run-dir best");
  expect_outcome(best, 0, "final evaluation");

  const auto other = run("tune " + kTuneConfig + " --space space.yaml --study study --trials 5 "
                         "--pruner none --set ppo.gamma=0.9" + kShortTrials);
  expect_outcome(other, 2, "was made with another config");
  EXPECT_EQ(read_file(dir_ / "study" / "journal.yaml"), journal);
}

// A `mnrl tune` killed outright (kill -9) loses no trial: its running trial stops with it
// (checkpointing, as on Ctrl-C), and the next process on the study sees its process gone, takes
// the trial over from its checkpoint, and finishes the study; no trial number runs twice.
TEST_F(TuneCliTest, AKilledProcessLosesNoTrial) {
  write_space(dir_ / "space.yaml", "ppo.learning_rate: {type: log_uniform, low: 1.0e-4, high: 3.0e-3}\n");
  const std::string tune = "tune " + kTuneConfig + " --space space.yaml --study study --trials 3 "
                           "--pruner none --set train.total_steps=60000 --set "
                           "train.eval_interval=20000 --set train.eval_episodes=2";
  const pid_t first = fork();
  if (first == 0) {
    if (chdir(dir_.c_str()) != 0 || !freopen("first.out", "w", stdout)) _exit(99);
    execl("/bin/sh", "sh", "-c", ("exec '" MNRL_BINARY "' " + tune).c_str(), nullptr);
    _exit(98);
  }
  const fs::path metrics = dir_ / "study" / "trials" / "trial_0" / "metrics.csv";
  std::error_code error;
  for (int i = 0; i < 1200 && !(fs::file_size(metrics, error) > 300 && !error); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_GT(fs::file_size(metrics, error), 300u) << "trial 0 never trained";
  kill(first, SIGKILL);
  int status = 0;
  waitpid(first, &status, 0);
  const auto second = run(tune);
  expect_outcome(second, 0, "trial 0: its process");
  EXPECT_NE(second.output.find("taking it over"), std::string::npos);
  EXPECT_NE(second.output.find("trial 0 resumed"), std::string::npos) << second.output;
  const std::string journal = read_file(dir_ / "study" / "journal.yaml");
  EXPECT_EQ(count_of(journal, "event: \"created\""), 3) << journal;
  EXPECT_EQ(count_of(journal, "event: \"created\", trial: 0,"), 1) << journal;
  EXPECT_EQ(count_of(journal, "state: \"complete\""), 3) << journal;
  EXPECT_NE(read_file(dir_ / "study" / "trials" / "trial_0" / "run_info.yaml").find("resumed:"),
            std::string::npos);
}

// Ctrl-C stops the running trials, each with a checkpoint (state stopped in the journal); the
// next mnrl tune on the study resumes them first and finishes the study.
TEST_F(TuneCliTest, CtrlCStopsTheTrialsAndTheNextProcessResumesThem) {
  write_space(dir_ / "space.yaml",
              "ppo.learning_rate: {type: log_uniform, low: 1.0e-4, high: 3.0e-3}\n");
  const std::string tune = "tune " + kTuneConfig +
                           " --space space.yaml --study study --trials 2 "
                           "--jobs 2 --pruner none --set train.total_steps=60000 --set "
                           "train.eval_interval=20000 --set train.eval_episodes=2";
  const pid_t process = fork();
  if (process == 0) {
    if (chdir(dir_.c_str()) != 0 || !freopen("first.out", "w", stdout)) _exit(99);
    execl("/bin/sh", "sh", "-c", ("exec '" MNRL_BINARY "' " + tune).c_str(), nullptr);
    _exit(98);
  }
  std::error_code error;
  for (int i = 0; i < 1200; ++i) {
    const auto size = [&](int trial) {
      return fs::file_size(
          dir_ / "study" / "trials" / ("trial_" + std::to_string(trial)) / "metrics.csv", error);
    };
    if (size(0) > 300 && !error && size(1) > 300 && !error) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill(process, SIGINT);
  int status = 0;
  waitpid(process, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 130) << read_file(dir_ / "first.out");
  EXPECT_EQ(count_of(read_file(dir_ / "study" / "journal.yaml"), "state: \"stopped\""), 2);
  const auto resumed = run(tune);
  expect_outcome(resumed, 0, "trial 0 resumed");
  EXPECT_NE(resumed.output.find("trial 1 resumed"), std::string::npos) << resumed.output;
  const std::string journal = read_file(dir_ / "study" / "journal.yaml");
  EXPECT_EQ(count_of(journal, "event: \"created\""), 2) << journal;
  EXPECT_EQ(count_of(journal, "state: \"complete\""), 2) << journal;
}

}  // namespace
