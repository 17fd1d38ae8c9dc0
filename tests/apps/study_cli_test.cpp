// Studies of several seeds (mnrl train CONFIG --seeds ...): the runs as parallel processes of
// one study directory, a stop that reaches every run, and a resume that finishes them.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
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

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Whether the lock file's flock is free (its holder ended) within `seconds`.
bool lock_freed_within(const fs::path& lock, int seconds) {
  const int fd = open(lock.c_str(), O_RDONLY);
  if (fd < 0) return false;
  bool freed = false;
  for (int i = 0; i < seconds * 20 && !freed; ++i) {
    freed = flock(fd, LOCK_EX | LOCK_NB) == 0;
    if (!freed) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  close(fd);
  return freed;
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

// The study's process: `mnrl train CONFIG --seeds 1-3 --jobs 2 ...` in the test's directory,
// started with fork/exec so the test can signal it.
pid_t start_study(const fs::path& dir, const std::string& total_steps) {
  const pid_t study = fork();
  if (study == 0) {
    if (chdir(dir.c_str()) != 0) _exit(99);
    if (!freopen("/dev/null", "w", stdout)) _exit(97);
    const std::string config = kStudyConfig;
    const std::string steps = "train.total_steps=" + total_steps;
    std::vector<const char*> argv{MNRL_BINARY,
                                  "train",
                                  config.c_str(),
                                  "--seeds",
                                  "1-3",
                                  "--jobs",
                                  "2",
                                  "--set",
                                  steps.c_str(),
                                  "--set",
                                  "train.eval_episodes=2",
                                  "--run-dir",
                                  "study",
                                  nullptr};
    execv(MNRL_BINARY, const_cast<char* const*>(argv.data()));
    _exit(98);
  }
  return study;
}

// Waits (at most 60 s) until seeds 1 and 2 have logged training rows, so both run when the test
// signals the study.
bool both_seeds_training(const fs::path& dir) {
  const auto logged = [&](const char* seed) {
    const fs::path metrics = dir / "study" / seed / "metrics.csv";
    std::error_code error;
    return fs::file_size(metrics, error) > 300 && !error;
  };
  for (int i = 0; i < 1200; ++i) {
    if (logged("seed_1") && logged("seed_2")) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

// waitpid with a deadline: the process group is killed past it, so a broken stop never leaves
// a test hanging or runs behind.
int wait_for(pid_t pid, int seconds) {
  int status = 0;
  for (int i = 0; i < seconds * 20; ++i) {
    if (waitpid(pid, &status, WNOHANG) == pid) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  ADD_FAILURE() << "the study did not end within " << seconds << " s";
  return status;
}

// Ctrl-C reaches the study alone (its runs have process groups of their own): it asks each
// running seed to stop, which checkpoints, starts no more, and ends; the resume finishes the
// stopped seeds from their checkpoints and runs the one never started.
TEST_F(StudyCliTest, CtrlCStopsEverySeedAndResumeFinishesThem) {
  const pid_t study = start_study(dir_, "60000");
  ASSERT_TRUE(both_seeds_training(dir_));
  kill(study, SIGINT);
  const int status = wait_for(study, 120);
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
  EXPECT_NE(read_file(dir_ / "study" / "seed_3" / "summary.yaml").find("steps: 60000"),
            std::string::npos);
  // Done is done: a second resume has nothing to run.
  expect_outcome(run("train --resume study"), 0, "final mean return over 3 seeds: ");
}

// The study killed outright (kill -9) leaves no orphan: the kernel asks each running seed to
// stop, which checkpoints and ends; the resume then moves aside a seed directory that never
// reached a checkpoint and starts that seed anew.
TEST_F(StudyCliTest, SeedsOfAKilledStudyStopAndResume) {
  const pid_t study = start_study(dir_, "60000");
  ASSERT_TRUE(both_seeds_training(dir_));
  kill(study, SIGKILL);
  wait_for(study, 10);
  for (const char* seed : {"seed_1", "seed_2"}) {
    const fs::path summary = dir_ / "study" / seed / "summary.yaml";
    for (int i = 0; i < 1200 && !fs::exists(summary); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ASSERT_TRUE(fs::exists(summary)) << seed << " did not stop when the study was killed";
    EXPECT_NE(read_file(summary).find("interrupted: true"), std::string::npos) << seed;
  }
  // Each seed holds its run directory's lock until its process ends.
  for (const char* seed : {"seed_1", "seed_2"}) {
    EXPECT_TRUE(lock_freed_within(dir_ / "study" / seed / ".lock", 60)) << seed;
  }
  fs::create_directories(dir_ / "study" / "seed_3");
  write_text(dir_ / "study" / "seed_3" / "metrics.csv", "step\n");
  const auto resumed = run("train --resume study");
  expect_outcome(resumed, 0, "final mean return over 3 seeds: ");
  EXPECT_TRUE(fs::exists(dir_ / "study" / "seed_3.incomplete" / "metrics.csv"));
  EXPECT_NE(read_file(dir_ / "study" / "seed_3" / "summary.yaml").find("steps: 60000"),
            std::string::npos);
}

// What a study's resume refuses: options its seeds do not take, a study.yaml edited into
// nonsense, a study under mpirun; --jobs on a lone run. Exit 2, the study untouched.
TEST_F(StudyCliTest, ResumeOfAStudyRefusesBadInput) {
  expect_outcome(run("train " + kStudyConfig + " --jobs 2"), 2, "--jobs goes with --seeds");
  expect_outcome(
      run_shell("OMPI_COMM_WORLD_SIZE=1 '" MNRL_BINARY "' train " + kStudyConfig + " --seeds 1-2"),
      2, "without mpirun");
  EXPECT_TRUE(fs::is_empty(dir_));
  expect_outcome(run("train " + kStudyConfig +
                     " --seeds 4 --jobs 2 --set train.total_steps=1000 --set train.eval_episodes=1 "
                     "--run-dir study"),
                 0, "final mean return over 1 seeds");
  const std::string good = read_file(dir_ / "study" / "study.yaml");
  expect_outcome(run("train --resume study --set ppo.gamma=0.9"), 2, "takes --jobs only");
  expect_outcome(run("train --resume study --progress none"), 2, "takes --jobs only");
  struct Edit {
    std::string from, to, said;
  };
  for (const Edit& edit : {Edit{"jobs: 2", "jobs: 0", "jobs: 0 is outside [1, 1024]"},
                           Edit{"seed: 4", "seed: -4", "seed -4 is negative"},
                           Edit{"\"done\"", "\"finished\"", "unknown status 'finished'"}}) {
    const std::string& from = edit.from;
    const std::string& to = edit.to;
    std::string bad = good;
    const std::size_t at = bad.find(from);
    ASSERT_NE(at, std::string::npos) << from << " in " << good;
    bad.replace(at, from.size(), to);
    write_text(dir_ / "study" / "study.yaml", bad);
    const auto r = run("train --resume study");
    expect_outcome(r, 2, "cannot read the study");
    EXPECT_NE(r.output.find(edit.said), std::string::npos) << r.output;
  }
  write_text(dir_ / "study" / "study.yaml", good);
  fs::remove(dir_ / "study" / "config.yaml");
  expect_outcome(run("train --resume study"), 2, "config.yaml is missing");
}

}  // namespace
