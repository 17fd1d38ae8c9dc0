// An env plugin's code outside reset() and step() is contained as theirs is: its constructor
// and destructor, and what it does to the process (signal handlers, the working directory, a
// fork, a thread of its own). Each test failed on the code before (tests/plugins: Hostile-v0).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>

#include "cli_test_fixture.h"
#include "tests/plugins/test_plugins.h"

namespace {
using namespace mnrl_cli_test;

class PluginContainmentCliTest : public CliTest {
 protected:
  // A short PPO run on Hostile-v0 with `kwargs` (a YAML flow mapping's inside).
  fs::path write_hostile_config(const std::string& kwargs, std::int64_t total_steps = 64) const {
    return write_config(
        "algo: ppo\nenv:\n  id: Hostile-v0\n  plugin: " + mnrl::test_plugins::path("walk") +
            "\n  num_envs: 2\n  kwargs: {" + kwargs +
            "}\nppo: {n_steps: 16, batch_size: 32}\ntrain: {total_steps: " +
            std::to_string(total_steps) + ", eval_episodes: 2}\ncheckpoint: {interval: 32}\n",
        "hostile.yaml");
  }

  bool has_checkpoint(const fs::path& run) const {
    std::error_code ignored;
    for (const auto& entry : fs::directory_iterator(run / "checkpoints", ignored)) {
      if (entry.path().filename().string().rfind("step_", 0) == 0) return true;
    }
    return false;
  }
};

// Waits up to `seconds` for `child` to end: its exit status (128+signal for a signal), or -1
// if it is still running (it is then killed).
int exit_status_within(pid_t child, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int status = 0;
  while (waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > end) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// exit() in a plugin env's constructor or destructor is a failure named as one in step() is
// (mnrl train exited 0 having written nothing); a segfault there names the call (it said
// "not in an env plugin call").
TEST_F(PluginContainmentCliTest, TheConstructorAndDestructorAreGuardedLikeStep) {
  const std::string env =
      "environment 'Hostile-v0' from plugin '" + mnrl::test_plugins::path("walk") + "'";
  write_hostile_config("constructor: exit");
  expect_outcome(run("train hostile.yaml --run-dir out"), 1,
                 "mnrl: the constructor of " + env +
                     " called exit(): an env must not end the process; the run failed");
  write_hostile_config("destructor: exit");
  expect_outcome(run("train hostile.yaml --run-dir out2"), 1,
                 "mnrl: the destructor of " + env + " called exit()");
  write_hostile_config("constructor: segfault");
  expect_outcome(run("train hostile.yaml --run-dir out3"), 139,
                 "mnrl: SIGSEGV (segmentation fault) in the constructor of " + env +
                     ": the env plugin crashed the process");
}

// A plugin that takes SIGINT and SIGTERM in its constructor: Ctrl-C still stops training with
// a checkpoint (the run went on ignoring it).
TEST_F(PluginContainmentCliTest, APluginTakingCtrlCCannotMakeTrainingUnstoppable) {
  write_hostile_config("constructor: take_stop_signals", 100'000'000);
  const pid_t child = fork();
  if (child == 0) {
    if (chdir(dir_.c_str()) != 0 || !freopen("/dev/null", "w", stdout)) _exit(97);
    execl(MNRL_BINARY, MNRL_BINARY, "train", "hostile.yaml", "--run-dir", "out",
          static_cast<char*>(nullptr));
    _exit(98);
  }
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!fs::exists(dir_ / "out" / "metrics.csv") && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(child, SIGINT);
  EXPECT_EQ(exit_status_within(child, 30), 130) << "Ctrl-C did not stop training";
  EXPECT_TRUE(has_checkpoint(dir_ / "out"));
}

// A chdir() in a plugin moved the run's later files (checkpoints, summary.yaml) under the new
// directory: the constructor's is undone (said once), and the run directory is written by its
// absolute path (against one in reset()).
TEST_F(PluginContainmentCliTest, APluginChdirDoesNotMoveTheRun) {
  fs::create_directories(dir_ / "elsewhere");
  for (const std::string call : {"constructor", "reset"}) {
    SCOPED_TRACE(call);
    const std::string run_dir = "out_" + call;
    write_hostile_config(call + ": chdir, to: " + (dir_ / "elsewhere").string());
    const auto r = run("train hostile.yaml --run-dir " + run_dir);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(has_checkpoint(dir_ / run_dir)) << r.output;
    EXPECT_TRUE(fs::exists(dir_ / run_dir / "summary.yaml"));
    EXPECT_TRUE(fs::is_empty(dir_ / "elsewhere")) << r.output;
    if (call == "constructor") {
      EXPECT_NE(r.output.find("warning: the constructor of environment 'Hostile-v0' from plugin "
                              "'" +
                              mnrl::test_plugins::path("walk") +
                              "' changed the working directory; mnrl changed it back"),
                std::string::npos)
          << r.output;
    }
  }
}

// A fork() in a plugin: the child ends as it returns into mnrl, and only the parent trains
// (every env's fork trained a copy of the run into the same directory).
TEST_F(PluginContainmentCliTest, AForkedChildDoesNotTrain) {
  write_hostile_config("constructor: fork");
  const auto r = run("train hostile.yaml --run-dir out");
  expect_outcome(r, 0,
                 "forked the process and the child returned to mnrl; the child ends (the run "
                 "goes on in the parent)");
  std::size_t finished = 0;
  for (auto at = r.output.find("final evaluation:"); at != std::string::npos;
       at = r.output.find("final evaluation:", at + 1)) {
    ++finished;
  }
  EXPECT_EQ(finished, 1u) << r.output;
}

// exit() from a thread the plugin started: a failure said so (it ended in "double free or
// corruption", the static destructors running under the training thread).
TEST_F(PluginContainmentCliTest, AnExitFromAPluginThreadIsAFailure) {
  write_hostile_config("constructor: exit_from_thread, after_ms: 300", 100'000'000);
  expect_outcome(run("train hostile.yaml --run-dir out"), 1,
                 "mnrl: a thread other than the main one called exit() (a thread of an env "
                 "plugin?): an env must not end the process; the run failed");
}

}  // namespace
