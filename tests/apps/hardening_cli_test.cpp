// What mnrl does with hostile or unlucky input and timing: outputs that are not files, stops
// in every phase, two processes on one run, tampered checkpoints, full disks, unbounded sizes.
// Each test is one class of fault; each failed on the code before the hardening issue.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "cli_test_fixture.h"

namespace {
using namespace mnrl_cli_test;

const std::string kPpo = std::string(MNRL_SOURCE_DIR) + "/configs/cartpole_ppo.yaml";
const std::string kDqn = std::string(MNRL_SOURCE_DIR) + "/configs/cartpole_dqn.yaml";

class HardeningCliTest : public CliTest {
 protected:
  // Starts `mnrl ARGUMENTS...` in the test directory (stdout to /dev/null, stderr to
  // stderr.txt) and returns its PID.
  pid_t start(const std::vector<std::string>& arguments) const {
    const pid_t child = fork();
    if (child == 0) {
      if (chdir(dir_.c_str()) != 0) _exit(99);
      std::vector<char*> argv{const_cast<char*>(MNRL_BINARY)};
      for (const auto& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      if (!freopen("/dev/null", "w", stdout) || !freopen("stderr.txt", "w", stderr)) _exit(97);
      execv(MNRL_BINARY, argv.data());
      _exit(98);
    }
    return child;
  }

  // Waits up to `seconds` for `condition`; false if it never held.
  static bool wait_for(const std::function<bool()>& condition, double seconds = 60) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!condition()) {
      if (std::chrono::steady_clock::now() > end) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  }

  // The exit status of `child` once it ends (-signal if a signal ended it).
  static int exit_status(pid_t child) {
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  }

  bool has_checkpoint(const std::string& run) const {
    std::error_code ignored;
    for (const auto& entry : fs::directory_iterator(dir_ / run / "checkpoints", ignored)) {
      if (entry.path().filename().string().rfind("step_", 0) == 0) return true;
    }
    return false;
  }
};

// An output path replaces only a regular file: never a device, a FIFO or a symlink.
TEST_F(HardeningCliTest, PlotReplacesOnlyRegularFiles) {
  fs::create_directories(dir_ / "run");
  std::ofstream(dir_ / "run" / "metrics.csv")
      << "step,wall_time,name,value\n100,0.1,charts/episodic_return,5\n";
  expect_outcome(run("plot run -o /dev/null"), 2,
                 "mnrl plot: -o: will not write '/dev/null': it is a character device");
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  ASSERT_EQ(mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  expect_outcome(run("plot run -o fifo"), 2, "it is a FIFO");
  EXPECT_TRUE(fs::is_fifo(dir_ / "fifo"));
  expect_outcome(run("plot run -o ''"), 2, "mnrl plot: -o: give the PNG file to write");
  // A single point is drawn (as a point), into a new file.
  expect_outcome(run("plot run -o one.png"), 0, "wrote one.png");
  EXPECT_EQ(read_file(dir_ / "one.png").substr(1, 3), "PNG");
}

// Text of the user's never runs as gnuplot commands: a newline in a path or a label would
// end a quoted string.
TEST_F(HardeningCliTest, PlotNeverRunsUserTextAsGnuplotCommands) {
  const std::string run_name = "run\nsystem 'touch injected_by_label'\n";
  fs::create_directories(dir_ / run_name);
  std::ofstream(dir_ / run_name / "metrics.csv")
      << "step,wall_time,name,value\n100,0.1,charts/episodic_return,5\n"
         "200,0.2,charts/episodic_return,6\n";
  const auto r = run("plot $'run\\nsystem \\'touch injected_by_label\\'\\n' "
                     "-o $'x.png\\nsystem \\'touch injected_by_output\\'\\n'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "injected_by_label"));
  EXPECT_FALSE(fs::exists(dir_ / "injected_by_output"));
  EXPECT_TRUE(fs::exists(dir_ / "x.png\nsystem 'touch injected_by_output'\n"));
}

// A damaged metrics file is refused at its first overlong line, not read whole.
TEST_F(HardeningCliTest, ASparseGigabyteMetricsFileIsRefusedAtOnce) {
  fs::create_directories(dir_ / "run");
  { std::ofstream(dir_ / "run" / "metrics.csv"); }
  fs::resize_file(dir_ / "run" / "metrics.csv", 1ull << 30);
  const auto start = std::chrono::steady_clock::now();
  expect_outcome(run("plot run -o x.png"), 2, "is not an mnrl metrics file (a line is longer than");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

// The checkpoint comes before the final evaluation, and a stop cuts the evaluation short:
// SIGTERM there keeps the finished run (it used to be swallowed: exit 0, not interrupted).
TEST_F(HardeningCliTest, AStopDuringTheFinalEvaluationKeepsTheRun) {
  const pid_t child = start({"train", kPpo, "--set", "train.total_steps=2048", "--set",
                             "train.eval_episodes=100000", "--run-dir", "out"});
  ASSERT_TRUE(wait_for([&] { return has_checkpoint("out"); })) << read_file(dir_ / "stderr.txt");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // into the evaluation
  kill(child, SIGTERM);
  EXPECT_EQ(exit_status(child), 143) << read_file(dir_ / "stderr.txt");
  const std::string summary = read_file(dir_ / "out" / "summary.yaml");
  EXPECT_NE(summary.find("steps: 2048\n"), std::string::npos) << summary;
  EXPECT_NE(summary.find("interrupted: true"), std::string::npos) << summary;
  EXPECT_TRUE(fs::exists(dir_ / "out" / "checkpoints" / "step_000000002048" / "manifest.yaml"));
  // The run is complete: evaluating it is what is left.
  expect_outcome(run("train --resume out"), 2, "is complete");
}

// Two Ctrl-C during the final evaluation end the process at once, and the run is still there.
TEST_F(HardeningCliTest, TwoCtrlCDuringTheFinalEvaluationLoseNothing) {
  const pid_t child = start({"train", kPpo, "--set", "train.total_steps=2048", "--set",
                             "train.eval_episodes=100000", "--run-dir", "out"});
  ASSERT_TRUE(wait_for([&] { return has_checkpoint("out"); })) << read_file(dir_ / "stderr.txt");
  kill(child, SIGINT);
  kill(child, SIGINT);
  EXPECT_EQ(exit_status(child), 130);
  EXPECT_TRUE(fs::exists(dir_ / "out" / "checkpoints" / "step_000000002048" / "manifest.yaml"));
  expect_outcome(run("eval out --episodes 2"), 0, "step 2048");
}

// One process per run directory: a second one is refused with the holder's PID, and the
// first one's run is untouched.
TEST_F(HardeningCliTest, OneProcessPerRunDirectory) {
  train_short_run();
  // Make the run resumable again, then let a long resume hold it.
  std::string config = read_file(dir_ / "out" / "config.yaml");
  config.replace(config.find("total_steps: 3000"), 17, "total_steps: 100000000");
  std::ofstream(dir_ / "out" / "config.yaml") << config;
  const pid_t first = start({"train", "--resume", "out"});
  ASSERT_TRUE(wait_for([&] { return read_file(dir_ / "out" / "run_info.yaml").find("resumed:") !=
                                    std::string::npos; }));
  expect_outcome(run("train --resume out"), 2,
                 "run directory 'out' is in use by another mnrl process (PID " +
                     std::to_string(first) + ")");
  kill(first, SIGINT);
  EXPECT_EQ(exit_status(first), 130);
  // Released with the process: the run resumes again.
  const auto resumes = [&] {
    const std::string run_info = read_file(dir_ / "out" / "run_info.yaml");
    int count = 0;
    for (auto at = run_info.find("  - command"); at != std::string::npos;
         at = run_info.find("  - command", at + 1)) {
      ++count;
    }
    return count;
  };
  const pid_t again = start({"train", "--resume", "out"});
  EXPECT_TRUE(wait_for([&] { return resumes() == 2; })) << read_file(dir_ / "stderr.txt");
  kill(again, SIGINT);
  EXPECT_EQ(exit_status(again), 130);
}

// The manifest's step decides which metrics rows a resume keeps: one that disagrees with the
// checkpoint's own training state is refused, and nothing changes.
TEST_F(HardeningCliTest, AManifestStepThatDisagreesIsRefused) {
  train_short_run();
  std::string config = read_file(dir_ / "out" / "config.yaml");
  config.replace(config.find("total_steps: 3000"), 17, "total_steps: 6000");
  std::ofstream(dir_ / "out" / "config.yaml") << config;
  const fs::path checkpoints = dir_ / "out" / "checkpoints";
  const std::string metrics = read_file(dir_ / "out" / "metrics.csv");
  const auto set_step = [&](const std::string& directory, const std::string& step) {
    std::string manifest = read_file(checkpoints / directory / "manifest.yaml");
    const auto line = manifest.find("\nstep: ") + 1;
    manifest.replace(line, manifest.find('\n', line) - line, "step: " + step);
    std::ofstream(checkpoints / directory / "manifest.yaml") << manifest;
  };
  set_step("step_000000003000", "-5");
  fs::remove_all(checkpoints / "step_000000002000");
  fs::remove_all(checkpoints / "step_000000001000");
  expect_outcome(run("train --resume out"), 2, "says step -5; a step is never negative");
  set_step("step_000000003000", "500");
  fs::rename(checkpoints / "step_000000003000", checkpoints / "step_000000000500");
  expect_outcome(run("train --resume out"), 2,
                 "its manifest says step 500, its training.state step 3000");
  EXPECT_EQ(read_file(dir_ / "out" / "metrics.csv"), metrics);
}

// A failed metrics write (a full disk; here a file size limit) stops the run at once, naming
// the file and the reason. It used to be noticed at the next checkpoint, without the reason.
TEST_F(HardeningCliTest, AFailedMetricsWriteStopsTheRunAtOnce) {
  const auto r = run_shell("ulimit -f 48 && '" MNRL_BINARY "' train " + kPpo +
                           " --set train.total_steps=100000000 --set logging.tensorboard=false "
                           "--set checkpoint.save_best=false --run-dir out");
  expect_outcome(r, 1, "writing 'out/metrics.csv' failed: File too large");
}

// Sizes that would exhaust memory are refused before anything is allocated or written.
TEST_F(HardeningCliTest, SizesAreBoundedBeforeAnythingIsAllocated) {
  expect_outcome(run("train " + kPpo + " --set env.num_envs=1e9"), 2,
                 "env.num_envs = 1e9 is out of range: must be in [1, 100000]");
  expect_outcome(run("train " + kPpo + " --set network.hidden_sizes=[100000,100000]"), 2,
                 "network.hidden_sizes[0] = 100000 is out of range: must be in [1, 65536]");
  expect_outcome(run("train " + kPpo + " --set network.hidden_sizes=[60000,60000]"), 2,
                 "network.hidden_sizes makes networks of about 7");
  // A convolutional encoder counts too: 4096 channels of 8x8 into 65536 features.
  expect_outcome(run("train " + kPpo +
                     " --set env.id=MinAtar/Breakout-v1 --set network.encoder=minatar_cnn"
                     " --set network.cnn_channels=[4096] --set network.cnn_features=65536"),
                 2,
                 "network.encoder (with the cnn_* keys) and network.hidden_sizes make networks of "
                 "about 34368M parameters");
  expect_outcome(run("train " + kDqn + " --set dqn.buffer_size=100000000000"), 2,
                 "dqn.buffer_size: this run would need about");
  EXPECT_FALSE(fs::exists(dir_ / "runs"));
}

// A float key must be finite, and a run whose loss stops being finite ends with exit 1 and
// writes no checkpoint of the ruined parameters.
TEST_F(HardeningCliTest, NonFiniteValuesNeverReachOrLeaveTraining) {
  expect_outcome(run("train " + kPpo + " --set ppo.ent_coef=.inf"), 2,
                 "ppo.ent_coef = .inf is out of range: a number in a config must be finite");
  expect_outcome(run("train " + kPpo + " --set ppo.learning_rate=1e38"), 2,
                 "ppo.learning_rate = 1e38 is out of range");
  // Finite config values, then a reward of 1e30: the value loss overflows float.
  const std::string plugin = std::string(MNRL_TEST_PLUGIN_DIR) + "/libwalk.so";
  write_config("algo: ppo\nenv: {id: Walk-v0, plugin: " + plugin +
                   ", num_envs: 2, kwargs: {reward: 1.0e30}}\n"
                   "ppo: {n_steps: 16, batch_size: 32}\ntrain: {total_steps: 100000}\n"
                   "checkpoint: {interval: 16, keep: 1000}\n",
               "huge.yaml");
  const auto r = run("train huge.yaml --run-dir out");
  expect_outcome(r, 1, "training diverged: losses/value_loss = ");
  // The checkpoints before the update that diverged are kept; none at or after it.
  const auto at = r.output.find("after the update at step ");
  ASSERT_NE(at, std::string::npos);
  const long diverged = std::stol(r.output.substr(at + 25));
  int kept = 0;
  for (const auto& checkpoint : fs::directory_iterator(dir_ / "out" / "checkpoints")) {
    EXPECT_LT(std::stol(checkpoint.path().filename().string().substr(5)), diverged);
    ++kept;
  }
  EXPECT_GT(kept, 0) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "summary.yaml"));
}

// The name becomes a directory: one path component, never an absolute path or "..".
TEST_F(HardeningCliTest, NamesStayInsideRuns) {
  for (const std::string name : {"/abs", "../x", "a/b", ".hidden", ""}) {
    expect_outcome(run("train " + kPpo + " --set 'name=\"" + name + "\"'"), 2,
                   "cannot name a run directory");
  }
  EXPECT_FALSE(fs::exists(dir_ / "runs"));
  EXPECT_FALSE(fs::exists(dir_ / "x"));
}

// Inputs that are not regular files are refused at once, never waited on or read without end.
TEST_F(HardeningCliTest, InputsMustBeRegularFiles) {
  ASSERT_EQ(mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  expect_outcome(run("train fifo"), 2, "config file 'fifo' is a FIFO, not a regular file");
  expect_outcome(run("train /dev/zero"), 2, "config file '/dev/zero' is a character device");
  expect_outcome(run("envs --plugin ./fifo"), 2, "it is not a regular file");
  train_short_run();
  const fs::path checkpoint = dir_ / "out" / "checkpoints" / "step_000000003000";
  fs::remove(checkpoint / "agent.state");
  fs::create_symlink("/dev/zero", checkpoint / "agent.state");
  expect_outcome(run("eval out/checkpoints/step_000000003000"), 2,
                 "checkpoint file 'out/checkpoints/step_000000003000/agent.state' is a character "
                 "device, not a regular file");
}

// What a run directory must be, said with exit 2 and before anything is written.
TEST_F(HardeningCliTest, RunDirectoryProblemsAreUsageErrors) {
  ASSERT_EQ(mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  expect_outcome(run("train " + kPpo + " --run-dir fifo"), 2,
                 "run directory 'fifo' exists and is not a directory");
  std::ofstream(dir_ / "file") << "x";
  expect_outcome(run("train " + kPpo + " --run-dir file/out"), 2,
                 "cannot create run directory 'file/out': Not a directory");
  train_short_run();
  std::string config = read_file(dir_ / "out" / "config.yaml");
  config.replace(config.find("total_steps: 3000"), 17, "total_steps: 6000");
  std::ofstream(dir_ / "out" / "config.yaml") << config;
  fs::remove(dir_ / "out" / "metrics.csv");
  const std::string run_info = read_file(dir_ / "out" / "run_info.yaml");
  const auto r = run("train --resume out");
  expect_outcome(r, 2, "cannot resume 'out': cannot read file 'out/metrics.csv': No such file");
  EXPECT_EQ(r.output.find("resuming"), std::string::npos) << r.output;
  EXPECT_EQ(read_file(dir_ / "out" / "run_info.yaml"), run_info);
}

// Plugin code that crashes, exits or never returns ends mnrl with a message naming the env,
// the plugin, the call and the step: before, a segfault printed nothing and exit(0) made a
// failed run exit 0.
TEST_F(HardeningCliTest, APluginThatCrashesOrExitsIsNamed) {
  const std::string plugin = std::string(MNRL_TEST_PLUGIN_DIR) + "/libwalk.so";
  const auto config = [&](const std::string& how) {
    return write_config("algo: ppo\nenv: {id: Throwing-v0, plugin: " + plugin +
                            ", num_envs: 2, kwargs: {after: 40, how: " + how +
                            "}}\nppo: {n_steps: 16, batch_size: 32}\n"
                            "train: {total_steps: 100000}\n",
                        how + ".yaml");
  };
  const std::string running = "step() of environment 'Throwing-v0' from plugin '" + plugin +
                              "' (episode 1, step 40)";
  // Exit statuses as the signal would give them: 128 + SIGSEGV / SIGABRT.
  expect_outcome(run("train " + config("segfault").string() + " --run-dir a"), 139,
                 "mnrl: SIGSEGV (segmentation fault) in " + running +
                     ": the env plugin crashed the process");
  expect_outcome(run("train " + config("abort").string() + " --run-dir b"), 134,
                 "mnrl: SIGABRT (abort) in " + running);
  expect_outcome(run("train " + config("exit").string() + " --run-dir c"), 1,
                 running + " called exit(): an env must not end the process; the run failed");
  expect_outcome(run("train " + config("quick_exit").string() + " --run-dir d"), 1,
                 running + " called quick_exit()");
}

// A stop request while plugin code never returns ends the process after the grace period,
// naming the call; the checkpoints written before are kept.
TEST_F(HardeningCliTest, AStopWhileAPluginHangsEndsAfterTheGracePeriod) {
  const std::string plugin = std::string(MNRL_TEST_PLUGIN_DIR) + "/libwalk.so";
  write_config("algo: ppo\nenv: {id: Throwing-v0, plugin: " + plugin +
                   ", num_envs: 2, kwargs: {after: 300, how: spin}}\n"
                   "ppo: {n_steps: 16, batch_size: 32}\ntrain: {total_steps: 100000}\n"
                   "checkpoint: {interval: 64, keep: 100}\n",
               "spin.yaml");
  const pid_t child = start({"train", "spin.yaml", "--run-dir", "out"});
  ASSERT_TRUE(wait_for([&] { return fs::exists(dir_ / "out" / "checkpoints" / "step_000000000576"); }))
      << read_file(dir_ / "stderr.txt");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // into the spin
  kill(child, SIGTERM);
  const auto stopped = std::chrono::steady_clock::now();
  EXPECT_EQ(exit_status(child), 143);
  EXPECT_LT(std::chrono::steady_clock::now() - stopped, std::chrono::seconds(15));
  EXPECT_NE(read_file(dir_ / "stderr.txt")
                .find("mnrl: still running 10 s after the stop request: step() of environment "
                      "'Throwing-v0' from plugin '" + plugin),
            std::string::npos)
      << read_file(dir_ / "stderr.txt");
  EXPECT_TRUE(fs::exists(dir_ / "out" / "checkpoints" / "step_000000000576" / "manifest.yaml"));
}

// A config.yaml edited since the checkpoint: a longer run or another schedule goes on; a key
// that changes what is trained is refused, each change listed, unless --allow-changes, which
// records them.
TEST_F(HardeningCliTest, AResumeWithAnEditedConfigListsTheChanges) {
  train_short_run();
  std::string config = read_file(dir_ / "out" / "config.yaml");
  config.replace(config.find("total_steps: 3000"), 17, "total_steps: 4000");
  config.replace(config.find("seed: 1"), 7, "seed: 2");
  // PPO's (other sections, such as ddpg's, may have the same value).
  const auto rate = config.find("learning_rate: 0.001", config.find("\nppo:"));
  ASSERT_NE(rate, std::string::npos) << config;
  config.replace(rate, 20, "learning_rate: 0.002");
  std::ofstream(dir_ / "out" / "config.yaml") << config;
  const std::string metrics = read_file(dir_ / "out" / "metrics.csv");
  const auto refused = run("train --resume out");
  expect_outcome(refused, 2,
                 "cannot resume 'out': its config.yaml differs from the checkpoint's in keys that "
                 "change what is trained:\n  ppo.learning_rate: 0.001 -> 0.002\n  seed: 1 -> 2\n"
                 "resume with --allow-changes");
  EXPECT_EQ(refused.output.find("total_steps"), std::string::npos) << refused.output;
  EXPECT_EQ(read_file(dir_ / "out" / "metrics.csv"), metrics);
  expect_outcome(run("train --resume out --allow-changes"), 0, "trained 4000 steps");
  const std::string run_info = read_file(dir_ / "out" / "run_info.yaml");
  EXPECT_NE(run_info.find("    config_changes:\n      \"ppo.learning_rate\": {before: \"0.001\", "
                          "after: \"0.002\"}\n"),
            std::string::npos)
      << run_info;
  expect_outcome(run("train " + kPpo + " --allow-changes"), 2, "--allow-changes requires --resume");
}

// A run's env plugin is recorded by absolute path and checksum: the run evaluates and resumes
// from any directory, and --plugin stands in for a plugin that has moved.
TEST_F(HardeningCliTest, APluginRunWorksFromAnyDirectoryAndPluginOverrides) {
  fs::create_directories(dir_ / "build");
  fs::copy_file(std::string(MNRL_TEST_PLUGIN_DIR) + "/libwalk.so", dir_ / "build" / "libwalk.so");
  write_config("algo: ppo\nenv: {id: Walk-v0, plugin: build/libwalk.so, num_envs: 2}\n"
               "ppo: {n_steps: 16, batch_size: 32}\ntrain: {total_steps: 256, eval_episodes: 2}\n",
               "walk.yaml");
  ASSERT_EQ(run("train walk.yaml --run-dir out").exit_code, 0);
  const std::string absolute = (dir_ / "build" / "libwalk.so").string();
  EXPECT_NE(read_file(dir_ / "out" / "config.yaml").find("plugin: " + absolute),
            std::string::npos);
  EXPECT_NE(read_file(dir_ / "out" / "run_info.yaml").find("env_plugin: {path: \"" + absolute +
                                                           "\", crc32c: \""),
            std::string::npos)
      << read_file(dir_ / "out" / "run_info.yaml");
  fs::create_directories(dir_ / "elsewhere");
  expect_outcome(run_shell("cd elsewhere && '" MNRL_BINARY "' eval ../out --episodes 2"), 0,
                 "ppo on Walk-v0, step 256");
  fs::rename(dir_ / "build", dir_ / "moved");
  expect_outcome(run("eval out --episodes 2"), 2, "cannot load plugin '" + absolute + "'");
  expect_outcome(run("eval out --episodes 2 --plugin moved/libwalk.so"), 0, "ppo on Walk-v0");
}

// --progress: lines without redraws for a log, nothing at all, or the live line.
TEST_F(HardeningCliTest, ProgressModes) {
  const std::string base = "train " + kPpo + " --set train.total_steps=4096 --set train.log_interval=1024 "
                           "--set train.eval_episodes=2 --progress ";
  const auto lines = run(base + "lines --run-dir a");
  EXPECT_EQ(lines.exit_code, 0) << lines.output;
  EXPECT_NE(lines.output.find("[ 25.0%] step 1024/4096 | "), std::string::npos) << lines.output;
  EXPECT_EQ(lines.output.find('\r'), std::string::npos) << lines.output;
  EXPECT_EQ(lines.output.find("| |"), std::string::npos) << "an empty field: " << lines.output;
  const auto none = run(base + "none --run-dir b");
  EXPECT_EQ(none.exit_code, 0) << none.output;
  EXPECT_EQ(none.output.find("step 1024/4096"), std::string::npos) << none.output;
  EXPECT_NE(none.output.find("trained 4096 steps"), std::string::npos) << none.output;
  const auto live = run(base + "live --run-dir c");
  EXPECT_NE(live.output.find("\r[ "), std::string::npos) << live.output;
  expect_outcome(run(base + "sometimes"), 2, "--progress: sometimes not in {auto,live,lines,none}");
}

// Found by the adversarial probe after the first round of hardening.
// A run inside another run's directory is refused, and rotation deletes only checkpoints.
TEST_F(HardeningCliTest, ARunNeverLivesInsideAnotherRun) {
  train_short_run();
  expect_outcome(run("train " + kPpo + " --run-dir out/checkpoints/step_000000000001"), 2,
                 "is inside the run directory '" + (dir_ / "out").string() + "'");
  // A directory named like a checkpoint without a manifest is not one: rotation leaves it.
  fs::create_directories(dir_ / "out" / "checkpoints" / "step_000000000000");
  std::ofstream(dir_ / "out" / "checkpoints" / "step_000000000000" / "precious.txt") << "x";
  std::string config = read_file(dir_ / "out" / "config.yaml");
  config.replace(config.find("total_steps: 3000"), 17, "total_steps: 3504");
  config.replace(config.find("keep: 3"), 7, "keep: 1");
  std::ofstream(dir_ / "out" / "config.yaml") << config;
  expect_outcome(run("train --resume out"), 0, "trained 3504 steps");
  EXPECT_TRUE(fs::exists(dir_ / "out" / "checkpoints" / "step_000000000000" / "precious.txt"));
  EXPECT_FALSE(fs::exists(dir_ / "out" / "checkpoints" / "step_000000003000"));
}

// What a resume will replace must be a regular file, checked before anything is said or done.
TEST_F(HardeningCliTest, AResumeRefusesSymlinkedRunFilesUpFront) {
  train_short_run();
  std::string config = read_file(dir_ / "out" / "config.yaml");
  config.replace(config.find("total_steps: 3000"), 17, "total_steps: 4000");
  std::ofstream(dir_ / "out" / "config.yaml") << config;
  fs::rename(dir_ / "out" / "summary.yaml", dir_ / "summary.yaml");
  fs::create_symlink(dir_ / "summary.yaml", dir_ / "out" / "summary.yaml");
  const auto r = run("train --resume out");
  expect_outcome(r, 2, "cannot resume 'out': will not write 'out/summary.yaml': it is a symbolic link");
  EXPECT_EQ(r.output.find("resuming"), std::string::npos) << r.output;
}

// A manifest names files of its own directory only.
TEST_F(HardeningCliTest, AManifestCannotNameFilesOutsideItsCheckpoint) {
  train_short_run();
  const fs::path checkpoint = dir_ / "out" / "checkpoints" / "step_000000003000";
  std::string manifest = read_file(checkpoint / "manifest.yaml");
  const auto files = manifest.find("files:\n") + 7;
  const std::string run_info = read_file(dir_ / "out" / "run_info.yaml");
  manifest.insert(files, "  ../../run_info.yaml: {bytes: " + std::to_string(run_info.size()) +
                             ", crc32c: \"00000000\"}\n");
  std::ofstream(checkpoint / "manifest.yaml") << manifest;
  expect_outcome(run("eval out/checkpoints/step_000000003000"), 2,
                 "manifest.yaml lists '../../run_info.yaml', which is not a file name in the "
                 "checkpoint");
}

// Command-line numbers are bounded like config numbers: never silently saturated.
TEST_F(HardeningCliTest, CommandLineNumbersAreBounded) {
  train_short_run();
  expect_outcome(run("eval out --episodes 100001"), 2, "must be in [1, 100000], got 100001");
  expect_outcome(run("eval out --seed 99999999999999999999"), 2,
                 "must be at most 9223372036854775807, got 99999999999999999999");
  expect_outcome(run("plot out --width 20000"), 2, "must be in [100, 10000], got 20000");
  // A metric that never has a drawable value.
  std::ofstream(dir_ / "out" / "metrics.csv", std::ios::app) << "3000,1.0,losses/broken,nan\n";
  expect_outcome(run("plot out --metric losses/broken -o x.png"), 2,
                 "every value of 'losses/broken' in metrics.csv is nan or infinite");
}

// A process started with SIGINT ignored (nohup, a background job) keeps ignoring it; SIGTERM
// still stops it with a checkpoint.
TEST_F(HardeningCliTest, AnIgnoredCtrlCStaysIgnored) {
  const pid_t child = fork();
  if (child == 0) {
    signal(SIGINT, SIG_IGN);
    if (chdir(dir_.c_str()) != 0 || !freopen("/dev/null", "w", stdout)) _exit(97);
    execl(MNRL_BINARY, MNRL_BINARY, "train", kPpo.c_str(), "--set", "train.total_steps=100000000",
          "--run-dir", "out", static_cast<char*>(nullptr));
    _exit(98);
  }
  ASSERT_TRUE(wait_for([&] { return fs::exists(dir_ / "out" / "metrics.csv"); }));
  kill(child, SIGINT);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(waitpid(child, nullptr, WNOHANG), 0) << "SIGINT stopped a process that ignores it";
  kill(child, SIGTERM);
  EXPECT_EQ(exit_status(child), 143);
  EXPECT_TRUE(has_checkpoint("out"));
}

}  // namespace
