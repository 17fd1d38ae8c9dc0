// Studies of several seeds (mnrl train CONFIG --seeds ...): the runs as parallel processes of
// one study directory, a stop that reaches every run, and a resume that finishes them.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "cli_test_fixture.h"

namespace {
using namespace mnrl_cli_test;

const std::string kStudyConfig = std::string(MNRL_SOURCE_DIR) + "/configs/cartpole_ppo.yaml";

int occurrences(const std::string& text, const std::string& part) {
  int count = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
    ++count;
  }
  return count;
}

using StudyCliTest = CliTest;

TEST_F(StudyCliTest, SeedsRunAsParallelRunsOfOneStudy) {
  const auto r = run("train " + kStudyConfig +
                     " --seeds 1-3 --jobs 2 --set train.total_steps=3000 --set "
                     "train.eval_episodes=2 --run-dir study");
  expect_outcome(r, 0, "study of 3 seeds, 2 at a time");
  EXPECT_NE(r.output.find("final mean return over 3 seeds: "), std::string::npos) << r.output;
  const std::string study = read_file(dir_ / "study" / "study.yaml");
  EXPECT_EQ(occurrences(study, "status: \"done\""), 3) << study;
  for (const char* seed : {"1", "2", "3"}) {
    const fs::path run_dir = dir_ / "study" / (std::string("seed_") + seed);
    EXPECT_NE(read_file(run_dir / "config.yaml").find(std::string("seed: ") + seed + "\n"),
              std::string::npos)
        << seed;
    EXPECT_NE(read_file(run_dir / "summary.yaml").find("interrupted: false"), std::string::npos);
    EXPECT_NE(r.output.find(std::string("seed ") + seed + ": final mean return "),
              std::string::npos)
        << r.output;
  }
  EXPECT_EQ(occurrences(read_file(dir_ / "study" / "summary.csv"), ",done,"), 3);
}

// Bad seeds, a bad config or a clash with --seed: exit 2 and nothing written.
TEST_F(StudyCliTest, BadSeedsOrConfigWriteNothing) {
  for (const std::string seeds : {"3-1", "1,1", "x", "1-", "-2"}) {
    const auto r = run("train " + kStudyConfig + " --seeds=" + seeds);
    expect_outcome(r, 2, "is not a list of seeds");
  }
  expect_outcome(run("train " + kStudyConfig + " --seeds 1-2 --set ppo.n_steps=-1"), 2,
                 "ppo.n_steps");
  EXPECT_EQ(run("train " + kStudyConfig + " --seeds 1-2 --seed 3").exit_code, 2);
  EXPECT_TRUE(fs::is_empty(dir_));
}

// Ctrl-C reaches the study alone (its runs have process groups of their own): it passes the
// stop to each running seed, which checkpoints, starts no more, and exits 130; the resume
// finishes the stopped seeds from their checkpoints and runs the one never started.
TEST_F(StudyCliTest, CtrlCStopsEverySeedAndResumeFinishesThem) {
  const pid_t study = fork();
  if (study == 0) {
    if (chdir(dir_.c_str()) != 0) _exit(99);
    if (!freopen("/dev/null", "w", stdout)) _exit(97);
    const std::string config = kStudyConfig;
    std::vector<const char*> argv{MNRL_BINARY,         "train",    config.c_str(), "--seeds",
                                  "1-3",               "--jobs",   "2",            "--set",
                                  "train.total_steps=150000", "--set", "train.eval_episodes=2",
                                  "--run-dir",         "study",    nullptr};
    execv(MNRL_BINARY, const_cast<char* const*>(argv.data()));
    _exit(98);
  }
  const fs::path metrics = dir_ / "study" / "seed_2" / "metrics.csv";
  for (int i = 0; i < 600 && !(fs::exists(metrics) && fs::file_size(metrics) > 2000); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill(study, SIGINT);
  int status = 0;
  waitpid(study, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 130) << "a seed finished before the signal?";
  const std::string stopped = read_file(dir_ / "study" / "study.yaml");
  EXPECT_EQ(occurrences(stopped, "status: \"stopped\""), 2) << stopped;
  EXPECT_EQ(occurrences(stopped, "status: \"pending\""), 1) << stopped;
  for (const char* seed : {"seed_1", "seed_2"}) {
    EXPECT_NE(read_file(dir_ / "study" / seed / "summary.yaml").find("interrupted: true"),
              std::string::npos)
        << seed;
  }
  EXPECT_FALSE(fs::exists(dir_ / "study" / "seed_3"));

  const auto resumed = run("train --resume study --jobs 2");
  expect_outcome(resumed, 0, "final mean return over 3 seeds: ");
  EXPECT_EQ(occurrences(read_file(dir_ / "study" / "study.yaml"), "status: \"done\""), 3);
  for (const char* seed : {"seed_1", "seed_2"}) {
    EXPECT_NE(read_file(dir_ / "study" / seed / "run_info.yaml").find("resumed:"),
              std::string::npos)
        << seed;
  }
  EXPECT_NE(read_file(dir_ / "study" / "seed_3" / "summary.yaml").find("steps: 150000"),
            std::string::npos);
}

}  // namespace
