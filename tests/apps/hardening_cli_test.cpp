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
#include <utility>
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

// `mnrl eval --video` writes its GIF as every output is written: only a regular file is
// replaced, a symlink at the temporary name is not followed, and a stop leaves nothing behind.
// It used to turn /dev/full, a FIFO or a symlink into a GIF (exit 0).
TEST_F(HardeningCliTest, EvalVideoReplacesOnlyRegularFiles) {
  if (!MNRL_WITH_GIF) GTEST_SKIP() << "mnrl was built without giflib: --video is refused";
  train_short_run();
  expect_outcome(run("eval out --video /dev/full"), 2,
                 "mnrl eval: will not write '/dev/full': it is a character device");
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
  ASSERT_EQ(mkfifo((dir_ / "fifo.gif").c_str(), 0600), 0);
  expect_outcome(run("eval out --video fifo.gif"), 2, "it is a FIFO");
  EXPECT_TRUE(fs::is_fifo(dir_ / "fifo.gif"));
  fs::create_symlink("/dev/stdout", dir_ / "out.gif");
  expect_outcome(run("eval out --video out.gif"), 2, "it is a symbolic link");
  EXPECT_TRUE(fs::is_symlink(dir_ / "out.gif"));

  std::ofstream(dir_ / "precious.txt") << "keep me";
  fs::create_symlink(dir_ / "precious.txt", dir_ / "play.gif.tmp");
  expect_outcome(run("eval out --video play.gif"), 2,
                 "will not write 'play.gif.tmp': it is a symbolic link");
  EXPECT_EQ(read_file(dir_ / "precious.txt"), "keep me");
  EXPECT_FALSE(fs::exists(dir_ / "play.gif"));
  fs::remove(dir_ / "play.gif.tmp");

  // Ctrl-C while recording: exit 130, no GIF and no temporary file.
  const pid_t child = start({"eval", "out", "--episodes", "200", "--video", "play.gif"});
  ASSERT_TRUE(wait_for([&] { return fs::exists(dir_ / "play.gif.tmp"); }))
      << read_file(dir_ / "stderr.txt");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  kill(child, SIGINT);
  EXPECT_EQ(exit_status(child), 130) << read_file(dir_ / "stderr.txt");
  EXPECT_FALSE(fs::exists(dir_ / "play.gif"));
  EXPECT_FALSE(fs::exists(dir_ / "play.gif.tmp"));
}

// An env that draws nothing cannot be recorded whatever the run: a usage error (it was exit 1).
TEST_F(HardeningCliTest, EvalVideoOfAnEnvWithoutPicturesIsAUsageError) {
  write_config("algo: ppo\nenv: {id: Walk-v0, plugin: " + std::string(MNRL_TEST_PLUGIN_DIR) +
                   "/libwalk.so, num_envs: 2}\nppo: {n_steps: 16, batch_size: 32}\n"
                   "train: {total_steps: 64, eval_episodes: 2}\n",
               "walk.yaml");
  ASSERT_EQ(run("train walk.yaml --run-dir out").exit_code, 0);
  expect_outcome(run("eval out --video walk.gif"), 2,
                 "mnrl eval: --video: 'Walk-v0' draws no pictures (its render() returns false)");
  EXPECT_FALSE(fs::exists(dir_ / "walk.gif"));
  EXPECT_FALSE(fs::exists(dir_ / "walk.gif.tmp"));
}

// More --episodes than a GIF holds side by side is a usage error found before any step (it
// was exit 1).
TEST_F(HardeningCliTest, EvalVideoOfTooManyEpisodesIsAUsageError) {
  if (!MNRL_WITH_GIF) GTEST_SKIP() << "mnrl was built without giflib: --video is refused";
  write_config("algo: ppo\nenv: {id: CartPole-v1, num_envs: 2}\n"
               "ppo: {n_steps: 16, batch_size: 32}\ntrain: {total_steps: 64, eval_episodes: 2}\n",
               "short.yaml");
  ASSERT_EQ(run("train short.yaml --run-dir out").exit_code, 0);
  expect_outcome(run("eval out --episodes 100000 --video many.gif"), 2,
                 "mnrl eval: --video: 100000 episodes of 'CartPole-v1' make a picture");
  EXPECT_FALSE(fs::exists(dir_ / "many.gif"));
  EXPECT_FALSE(fs::exists(dir_ / "many.gif.tmp"));
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
  // The run writes its directory by its absolute path (a plugin's chdir() cannot move it).
  expect_outcome(r, 1,
                 "writing '" + (fs::canonical(dir_) / "out/metrics.csv").string() +
                     "' failed: File too large");
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

// --set on a resume changes the run as an edit of its config.yaml would: a longer budget is
// taken and written to config.yaml (later resumes keep it) and run_info.yaml; a key that changes
// what is trained needs --allow-changes (it was refused outright: "--resume excludes --set").
TEST_F(HardeningCliTest, ASetOnResumeChangesTheRunAsAnEditWould) {
  train_short_run();
  const std::string metrics = read_file(dir_ / "out" / "metrics.csv");
  const std::string config = read_file(dir_ / "out" / "config.yaml");
  const auto refused = run("train --resume out --set train.total_steps=4000 --set ppo.gamma=0.9");
  expect_outcome(refused, 2,
                 "cannot resume 'out': its config.yaml with --set differs from the checkpoint's "
                 "in keys that change what is trained:\n  ppo.gamma: 0.98 -> 0.9\nresume with "
                 "--allow-changes");
  EXPECT_EQ(read_file(dir_ / "out" / "metrics.csv"), metrics);
  EXPECT_EQ(read_file(dir_ / "out" / "config.yaml"), config);
  expect_outcome(run("train --resume out --set train.total_steps=4000"), 0, "trained 4000 steps");
  EXPECT_NE(read_file(dir_ / "out" / "config.yaml").find("total_steps: 4000"), std::string::npos);
  EXPECT_NE(read_file(dir_ / "out" / "run_info.yaml")
                .find("\"train.total_steps\": {before: \"3000\", after: \"4000\"}"),
            std::string::npos)
      << read_file(dir_ / "out" / "run_info.yaml");
  // The run is complete at its new budget; a bad --set is a config error naming it.
  expect_outcome(run("train --resume out"), 2, "step 4000 of train.total_steps 4000");
  expect_outcome(run("train --resume out --set train.total_stps=5000"), 2,
                 "--set train.total_stps=5000: unknown key 'train.total_stps' (did you mean "
                 "'total_steps'?)");
  expect_outcome(run("train --resume out --set train.total_steps=5000 --set ppo.gamma=0.9 "
                     "--allow-changes"),
                 0, "trained 5000 steps");
  EXPECT_NE(read_file(dir_ / "out" / "config.yaml").find("gamma: 0.9\n"), std::string::npos);
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

// SIGHUP (a closed terminal, a dropped ssh session) and SIGUSR1 (Slurm's warning before the
// time limit) stop a run as SIGTERM does: a checkpoint and the summary, exit 128 + the signal.
// They used to end the run with nothing resumable.
TEST_F(HardeningCliTest, HangupAndUsr1StopWithACheckpointEvenWhenRepeated) {
  for (const auto& [signal, status] : {std::pair{SIGHUP, 129}, std::pair{SIGUSR1, 138}}) {
    const std::string out = "out" + std::to_string(signal);
    const pid_t child =
        start({"train", kPpo, "--set", "train.total_steps=100000000", "--run-dir", out});
    ASSERT_TRUE(wait_for([&] { return fs::exists(dir_ / out / "metrics.csv"); }));
    // Twice, as a dropped ssh session hangs up its jobs (the shell, then the kernel), and as
    // Slurm and mpirun both forward USR1: the second must not cut the first one's stop short.
    kill(child, signal);
    kill(child, signal);
    EXPECT_EQ(exit_status(child), status) << read_file(dir_ / "stderr.txt");
    EXPECT_TRUE(has_checkpoint(out));
    EXPECT_NE(read_file(dir_ / out / "summary.yaml").find("interrupted: true"), std::string::npos);
  }
}

// A closed stdout (`mnrl train ... | head -1`) ends the progress lines, not the run: SIGPIPE
// used to kill it with no checkpoint.
TEST_F(HardeningCliTest, AClosedStdoutNeverEndsTheRun) {
  const auto r = run_shell("set -o pipefail; '" MNRL_BINARY "' train " + kPpo +
                           " --set train.total_steps=4096 --set train.log_interval=256"
                           " --progress lines --run-dir out | head -1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const std::string summary = read_file(dir_ / "out" / "summary.yaml");
  EXPECT_NE(summary.find("steps: 4096\n"), std::string::npos) << summary;
  EXPECT_EQ(summary.find("interrupted: true"), std::string::npos) << summary;
}

// A resume trusts no directory name: copies named step_good or step_<20 digits> are not the
// run's checkpoints (the newest by name was resumed from, retraining and cutting the metrics).
// An empty metrics.csv, which a crash can leave, is rebuilt (it stopped the resume with exit 1
// after "resuming"); one that is not mnrl's is refused before anything is said or changed.
TEST_F(HardeningCliTest, AResumeTrustsOnlyCheckpointNamesAndRebuildsAnEmptyMetricsFile) {
  train_short_run();
  std::string config = read_file(dir_ / "out" / "config.yaml");
  config.replace(config.find("total_steps: 3000"), 17, "total_steps: 3504");
  std::ofstream(dir_ / "out" / "config.yaml") << config;
  const fs::path checkpoints = dir_ / "out" / "checkpoints";
  for (const char* copy : {"step_good", "step_99999999999999999999"}) {
    fs::copy(checkpoints / "step_000000001000", checkpoints / copy, fs::copy_options::recursive);
  }
  std::ofstream(dir_ / "out" / "metrics.csv") << "not,metrics\n";
  const auto refused = run("train --resume out");
  expect_outcome(refused, 2,
                 "cannot resume 'out': 'out/metrics.csv' is not an mnrl metrics file");
  EXPECT_EQ(refused.output.find("resuming"), std::string::npos) << refused.output;
  { std::ofstream(dir_ / "out" / "metrics.csv", std::ios::trunc); }
  const auto resumed = run("train --resume out");
  expect_outcome(resumed, 0, "at step 3000 from ");
  EXPECT_NE(resumed.output.find("trained 3504 steps"), std::string::npos) << resumed.output;
  EXPECT_EQ(read_file(dir_ / "out" / "metrics.csv").rfind("step,wall_time,name,value\n", 0), 0u);
  EXPECT_TRUE(fs::exists(checkpoints / "step_good" / "manifest.yaml"));
}

// An IMPALA (or Ape-X) checkpoint holding its actors' states is refused in one process, as
// another number of ranks is: it resumed silently, dropping the actors' states.
TEST_F(HardeningCliTest, AnActorsCheckpointIsNotResumedInOneProcess) {
  ASSERT_EQ(run("train " MNRL_SOURCE_DIR "/configs/cartpole_impala.yaml --set "
                "train.total_steps=1024 --set train.eval_episodes=2 --run-dir out")
                .exit_code,
            0);
  std::string config = read_file(dir_ / "out" / "config.yaml");
  config.replace(config.find("total_steps: 1024"), 17, "total_steps: 4096");
  std::ofstream(dir_ / "out" / "config.yaml") << config;
  // As a job of a learner and one actor leaves it: the actor's state beside the learner's (an
  // empty one, whose CRC-32C is 0).
  fs::path checkpoint;
  for (const auto& entry : fs::directory_iterator(dir_ / "out" / "checkpoints")) {
    const bool step = entry.path().filename().string().rfind("step_", 0) == 0;
    if (step && entry.path() > checkpoint) checkpoint = entry.path();  // the newest
  }
  ASSERT_FALSE(checkpoint.empty());
  std::ofstream(checkpoint / "rank1.actor.state");
  std::string manifest = read_file(checkpoint / "manifest.yaml");
  manifest.insert(manifest.find("files:\n") + 7,
                  "  rank1.actor.state: {bytes: 0, crc32c: \"00000000\"}\n");
  std::ofstream(checkpoint / "manifest.yaml") << manifest;
  const auto refused = run("train --resume out");
  expect_outcome(refused, 2,
                 "was written by a job of 1 learner(s) and 1 actor(s); resume it with mpirun "
                 "-np 2, not 1");
  EXPECT_EQ(refused.output.find("resuming"), std::string::npos) << refused.output;
}

// Layouts that need more ranks than the job has (pipeline stages, parameter servers) are
// refused in one process before anything is written, saying how many to start.
TEST_F(HardeningCliTest, LayoutsNeedingMoreRanksSayHowMany) {
  expect_outcome(run("train " + kPpo + " --set distributed.pipeline_stages=2 --run-dir out"), 2,
                 "distributed.pipeline_stages: 2 stages take 2 ranks (mpirun -np 2), or a "
                 "multiple of 2 for pipelines side by side, not 1");
  expect_outcome(run("train " MNRL_SOURCE_DIR "/configs/cartpole_a3c.yaml --set "
                     "distributed.parameter_servers=2 --run-dir out"),
                 2,
                 "distributed.parameter_servers: 2 servers and a worker at least take 3 ranks "
                 "(mpirun -np 3 or more), not 1");
  EXPECT_FALSE(fs::exists(dir_ / "out"));
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

// A YAML alias inside its own anchor is a value that contains itself: the key check walked it
// until the stack overflowed (exit 139, no message). Refused with the place, from a file, a
// --set or env.kwargs.
TEST_F(HardeningCliTest, AConfigValueThatContainsItselfIsRefused) {
  write_config("x: &a [*a]", "cycle.yaml");
  expect_outcome(run("train cycle.yaml"), 2,
                 "cycle.yaml:1:4: the value of 'x' contains itself through a YAML alias");
  expect_outcome(run("train " + kPpo + " --set 'env.kwargs=&k {a: *k}'"), 2,
                 "--set env.kwargs=&k {a: *k}: the value of 'env.kwargs' contains itself");
  write_config("algo: ppo\nenv:\n  id: CartPole-v1\n  kwargs: &k [1, *k]\n", "kwargs.yaml");
  expect_outcome(run("train kwargs.yaml"), 2,
                 "kwargs.yaml:4:11: the value of 'env.kwargs' contains itself");
  EXPECT_FALSE(fs::exists(dir_ / "runs"));
}

// A mistyped bundled config name gets the closest one (it got "cannot read config file").
TEST_F(HardeningCliTest, AMistypedBundledConfigNameIsSuggested) {
  expect_outcome(run("train cartpol_ppo"), 2,
                 "mnrl train: config error: 'cartpol_ppo' is neither a file nor a bundled config "
                 "(did you mean 'cartpole_ppo'?); bundled: acrobot_c51, acrobot_dqn, ");
  expect_outcome(run("train pendulum_td4.yaml"), 2, "(did you mean 'pendulum_td3'?)");
  expect_outcome(run("bench cartpole_dqm"), 2, "(did you mean 'cartpole_dqn'?)");
  EXPECT_TRUE(fs::is_empty(dir_));
}

// Values are echoed cut to 80 bytes: a 900 KB scalar filled the terminal with itself.
TEST_F(HardeningCliTest, EchoedValuesAreCut) {
  write_config("env: {id: " + std::string(900000, 'x') + "}\n", "long.yaml");
  const auto r = run("train long.yaml");
  expect_outcome(r, 2,
                 "env.id: unknown environment '" + std::string(80, 'x') + "… (900000 bytes)'");
  EXPECT_LT(r.output.size(), 2000u) << r.output.substr(0, 2000);
  const auto set = run("train " + kPpo + " --set ppo.gamma=2." + std::string(100000, '0'));
  expect_outcome(set, 2,
                 "… (100012 bytes): ppo.gamma = 2." + std::string(78, '0') +
                     "… (100002 bytes) is out of range: must be in [0, 1]");
  EXPECT_LT(set.output.size(), 2000u) << set.output.substr(0, 2000);
  expect_outcome(run("train " + kPpo + " --set $'ppo.gamma=0.9\\n---\\n0.5'"), 2,
                 "expected a single YAML value, found 2 documents (separated by '---')");
}

// A budget that ends before an algorithm with a replay starts learning trained nothing and
// said "trained 3000 steps". Refused naming both keys, as a batch larger than a rollout is.
TEST_F(HardeningCliTest, ABudgetThatNeverLearnsIsRefused) {
  const std::string td3 = std::string(MNRL_SOURCE_DIR) + "/configs/pendulum_td3.yaml";
  expect_outcome(run("train " + td3 + " --set train.total_steps=3000"), 2,
                 "pendulum_td3.yaml:21:20: td3.learning_starts = 10000 is not below "
                 "train.total_steps = 3000: the run would end before it learns anything");
  expect_outcome(run("train " + kDqn + " --set train.total_steps=1000"), 2,
                 "dqn.learning_starts = 1000 is not below train.total_steps = 1000");
  const std::string apex = std::string(MNRL_SOURCE_DIR) + "/configs/cartpole_apex.yaml";
  expect_outcome(run("train " + apex + " --set train.total_steps=500"), 2,
                 "apex_dqn.learning_starts = 1000 is not below train.total_steps = 500");
  // The replay must also come to hold one batch.
  expect_outcome(run("train " + td3 + " --set train.total_steps=200 --set td3.learning_starts=0"),
                 2,
                 "pendulum_td3.yaml:22:15: td3.batch_size = 256 is more than train.total_steps = "
                 "200: the replay would never hold one batch");
  EXPECT_FALSE(fs::exists(dir_ / "runs"));
}

}  // namespace
