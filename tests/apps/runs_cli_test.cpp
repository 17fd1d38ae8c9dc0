// Runs as a user handles them: stopping with a signal, resuming, evaluating, plotting.
#include <gtest/gtest.h>
#include <signal.h>
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

const std::string kConfig = std::string(MNRL_SOURCE_DIR) + "/configs/cartpole_ppo.yaml";

// Files a crash or a signal could leave half-written.
std::vector<fs::path> partial_files(const fs::path& dir) {
  std::vector<fs::path> found;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".tmp" || name.rfind(".partial", 0) == 0 ||
        name.find(".partial") != std::string::npos) {
      found.push_back(entry.path());
    }
  }
  return found;
}

class RunsCliTest : public CliTest {
 protected:
  // Starts `mnrl train` in the test directory, waits until it has trained a little, sends
  // `signal` and returns the exit status.
  int train_and_signal(int signal, const std::vector<std::string>& arguments) {
    const pid_t child = fork();
    if (child == 0) {
      if (chdir(dir_.c_str()) != 0) _exit(99);
      std::vector<char*> argv{const_cast<char*>(MNRL_BINARY), const_cast<char*>("train")};
      for (const auto& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      if (!freopen("/dev/null", "w", stdout)) _exit(97);
      execv(MNRL_BINARY, argv.data());
      _exit(98);
    }
    const fs::path metrics = dir_ / "out" / "metrics.csv";
    for (int i = 0; i < 600 && !(fs::exists(metrics) && fs::file_size(metrics) > 2000); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    kill(child, signal);
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
};

// Ctrl-C stops at the next step, writes a checkpoint, metrics and summary, and exits 130;
// nothing is left half-written.
TEST_F(RunsCliTest, CtrlCSavesACheckpointAndLeavesNoPartialFile) {
  const int status = train_and_signal(
      SIGINT, {kConfig, "--set", "train.total_steps=100000000", "--run-dir", "out"});
  EXPECT_EQ(status, 130);
  const std::string summary = read_file(dir_ / "out" / "summary.yaml");
  EXPECT_NE(summary.find("interrupted: true"), std::string::npos) << summary;
  // By its absolute path, as the run writes its directory.
  EXPECT_NE(
      summary.find("checkpoint: \"" + (fs::canonical(dir_) / "out/checkpoints/step_").string()),
      std::string::npos)
      << summary;
  EXPECT_EQ(partial_files(dir_ / "out"), std::vector<fs::path>{});
  EXPECT_EQ(
      std::distance(fs::directory_iterator(dir_ / "out" / "checkpoints"), fs::directory_iterator()),
      1);
}

// SIGTERM (a cluster's scheduler) leaves a checkpoint; --resume finishes the run from it.
TEST_F(RunsCliTest, SigtermedRunResumesToTheEnd) {
  const int status =
      train_and_signal(SIGTERM, {kConfig, "--set", "train.total_steps=40000", "--set",
                                 "train.eval_episodes=2", "--run-dir", "out"});
  ASSERT_EQ(status, 143) << "the run finished before the signal?";
  const auto resumed = run("train --resume out");
  expect_outcome(resumed, 0, "resuming ppo on CartPole-v1 at step ");
  EXPECT_NE(resumed.output.find("trained 40000 steps"), std::string::npos) << resumed.output;
  const std::string summary = read_file(dir_ / "out" / "summary.yaml");
  EXPECT_NE(summary.find("interrupted: false"), std::string::npos) << summary;
  EXPECT_NE(read_file(dir_ / "out" / "run_info.yaml").find("resumed:\n  - command: "),
            std::string::npos);
  EXPECT_EQ(partial_files(dir_ / "out"), std::vector<fs::path>{});
}

TEST_F(RunsCliTest, ResumeRefusesWhatItCannotUse) {
  expect_outcome(run("train"), 2, "give an experiment file (mnrl train CONFIG) or a run to resume");
  expect_outcome(run("train --resume nowhere"), 2,
                 "cannot resume 'nowhere': not a run directory (no config.yaml)");
  expect_outcome(run("train " + kConfig + " --resume out"), 2, "config excludes --resume");
  train_short_run();
  expect_outcome(run("train --resume out --seed 2"), 2, "--resume excludes --seed");
  expect_outcome(run("train --resume out"), 2,
                 "is complete (its latest checkpoint is at step 3000 of train.total_steps 3000)");
  // Every checkpoint damaged: each is named with its problem, and nothing is resumed.
  for (const auto& checkpoint : fs::directory_iterator(dir_ / "out" / "checkpoints")) {
    fs::resize_file(checkpoint.path() / "agent.state", 100);
  }
  const auto damaged = run("train --resume out");
  expect_outcome(damaged, 2, "has no usable checkpoint");
  EXPECT_NE(damaged.output.find("skipping a checkpoint: checkpoint 'out/checkpoints/"
                                "step_000000003000': file 'agent.state' has 100 bytes"),
            std::string::npos)
      << damaged.output;
}

// A checkpoint that does not fit the run's (edited) config is refused before the run
// directory changes at all.
TEST_F(RunsCliTest, AFailedResumeChangesNothing) {
  train_short_run();
  fs::remove_all(dir_ / "out" / "checkpoints" / "step_000000003000");
  std::string config = read_file(dir_ / "out" / "config.yaml");
  const auto sizes = config.find("hidden_sizes: [64, 64]");
  ASSERT_NE(sizes, std::string::npos) << config;
  config.replace(sizes, 22, "hidden_sizes: [32, 32]");
  std::ofstream(dir_ / "out" / "config.yaml") << config;
  const auto before = std::distance(fs::recursive_directory_iterator(dir_ / "out"), {});
  const std::string metrics = read_file(dir_ / "out" / "metrics.csv");
  const std::string run_info = read_file(dir_ / "out" / "run_info.yaml");

  expect_outcome(run("train --resume out"), 2,
                 "cannot resume 'out': its config.yaml differs from the checkpoint's in keys "
                 "that change what is trained:\n  network.hidden_sizes: [64, 64] -> [32, 32]\n"
                 "resume with --allow-changes");
  const auto refused = run("train --resume out --allow-changes");
  expect_outcome(refused, 2,
                 "the checkpoint does not fit the run's config: out/checkpoints/"
                 "step_000000002000/agent.state: expected ");
  // Nothing said about resuming a run that was not resumed.
  EXPECT_EQ(refused.output.find("resuming"), std::string::npos) << refused.output;
  EXPECT_EQ(read_file(dir_ / "out" / "metrics.csv"), metrics);
  EXPECT_EQ(read_file(dir_ / "out" / "run_info.yaml"), run_info);
  EXPECT_EQ(std::distance(fs::recursive_directory_iterator(dir_ / "out"), {}), before);
}

TEST_F(RunsCliTest, EvalReportsMeanAndStdOfACheckpoint) {
  train_short_run();
  const auto greedy = run("eval out --episodes 3 --seed 4");
  expect_outcome(greedy, 0, "ppo on CartPole-v1, step 3000 (out/checkpoints/step_000000003000)");
  EXPECT_NE(greedy.output.find("over 3 episodes (greedy actions, seed 4)"), std::string::npos)
      << greedy.output;
  EXPECT_EQ(run("eval out --episodes 3 --seed 4").output, greedy.output) << "deterministic";
  expect_outcome(run("eval out/checkpoints/step_000000002000 --stochastic"), 0,
                 "over 10 episodes (stochastic actions, seed 0)");

  // A corrupted newest checkpoint: named, skipped, and the one before it is used.
  std::fstream file(dir_ / "out/checkpoints/step_000000003000/envs.state",
                    std::ios::in | std::ios::out | std::ios::binary);
  file.seekp(20);
  file.put('\x7f');
  file.close();
  const auto fallback = run("eval out");
  expect_outcome(fallback, 0, "step 2000");
  EXPECT_NE(fallback.output.find("file 'envs.state' is corrupted"), std::string::npos)
      << fallback.output;
  expect_outcome(run("eval out/checkpoints/step_000000003000"), 2,
                 "file 'envs.state' is corrupted (CRC-32C");
  expect_outcome(run("eval ."), 2, "is neither a run directory with checkpoints nor a checkpoint");
}

TEST_F(RunsCliTest, EvalVideoRecordsTheEpisodesSideBySideAsAGif) {
  train_short_run();
  if (!MNRL_WITH_GIF) {
    expect_outcome(run("eval out --episodes 3 --video play.gif"), 2,
                   "this mnrl was built without giflib");
    GTEST_SKIP() << "mnrl was built without giflib (Debian: libgif-dev): --video is refused";
  }
  expect_outcome(run("eval out --episodes 3 --video play.gif --video-fps 50"), 0,
                 "video: play.gif");
  const std::string gif = read_file(dir_ / "play.gif");
  ASSERT_EQ(gif.substr(0, 6), "GIF89a");
  // The logical screen: three 600x400 CartPole frames in a row, halved to fit 1280 pixels,
  // 2-pixel gaps between them.
  const auto le16 = [&gif](std::size_t at) {
    return static_cast<unsigned char>(gif[at]) | static_cast<unsigned char>(gif[at + 1]) << 8;
  };
  EXPECT_EQ(le16(6), 904);
  EXPECT_EQ(le16(8), 200);
  // Looping forever, then a frame per step of the longest episode, 2 centiseconds each (the
  // first graphic control extension follows the loop extension; later frames are counted by
  // theirs, which image data can only add to).
  const std::size_t loop = gif.find("NETSCAPE2.0");
  ASSERT_NE(loop, std::string::npos);
  const std::size_t first = gif.find("\x21\xf9\x04", loop);
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(le16(first + 4), 2);
  std::size_t frames = 0;
  for (std::size_t at = first; at != std::string::npos; at = gif.find("\x21\xf9\x04", at + 1)) {
    ++frames;
  }
  EXPECT_GT(frames, 10u);
  EXPECT_FALSE(fs::exists(dir_ / "play.gif.tmp"));

  // An unwritable path fails before any episode is played, naming it.
  expect_outcome(run("eval out --video no/such/dir/play.gif"), 2, "no/such/dir/play.gif");
  // Faster than 50 frames/s cannot be said in a GIF's hundredths of a second.
  expect_outcome(run("eval out --video play.gif --video-fps 60"), 2, "--video-fps");
}

TEST_F(RunsCliTest, TensorBoardFileFollowsTheLoggingSetting) {
  const auto has_event_file = [](const fs::path& run) {
    for (const auto& entry : fs::directory_iterator(run)) {
      if (entry.path().filename().string().rfind("events.out.tfevents.", 0) == 0) return true;
    }
    return false;
  };
  const std::string short_run = "train " + kConfig + " --set train.total_steps=512 ";
  ASSERT_EQ(run(short_run + "--run-dir on").exit_code, 0);
  EXPECT_TRUE(has_event_file(dir_ / "on"));
  ASSERT_EQ(run(short_run + "--set logging.tensorboard=false --run-dir off").exit_code, 0);
  EXPECT_FALSE(has_event_file(dir_ / "off"));
}

// Width and height from a PNG's IHDR chunk (big-endian, right after the 8-byte signature and
// the chunk's length and type).
std::pair<int, int> png_size(const std::string& png) {
  const auto be32 = [&png](std::size_t at) {
    int value = 0;
    for (std::size_t i = 0; i < 4; ++i)
      value = (value << 8) | static_cast<unsigned char>(png[at + i]);
    return value;
  };
  return {be32(16), be32(20)};
}

TEST_F(RunsCliTest, PlotDrawsAPngOfTheRequestedSize) {
  train_short_run();
  fs::copy(dir_ / "out", dir_ / "again", fs::copy_options::recursive);
  expect_outcome(run("plot out again -o curve.png --width 640 --height 400"), 0,
                 "wrote curve.png (charts/episodic_return of 2 runs, 640x400)");
  const std::string png = read_file(dir_ / "curve.png");
  ASSERT_GT(png.size(), 1000u) << "a drawn image, not an empty one";
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  EXPECT_EQ(png_size(png), std::make_pair(640, 400));
  expect_outcome(run("plot out --metric eval/mean_return -o eval.png"), 0, "800x500");
  EXPECT_EQ(png_size(read_file(dir_ / "eval.png")), std::make_pair(800, 500));

  expect_outcome(run("plot out --metric charts/episodic_retrun -o bad.png"), 2,
                 "run 'out' has no 'charts/episodic_retrun' in metrics.csv (did you mean "
                 "'charts/episodic_return'?)");
  expect_outcome(run("plot nowhere -o bad.png"), 2, "run 'nowhere': no metrics.csv");
  fs::create_directories(dir_ / "fresh");
  std::ofstream(dir_ / "fresh" / "metrics.csv") << "step,wall_time,name,value\n";
  expect_outcome(
      run("plot fresh -o bad.png"), 2,
      "run 'fresh' has no 'charts/episodic_return' in metrics.csv (it has no metrics yet)");
  EXPECT_FALSE(fs::exists(dir_ / "bad.png"));
}

}  // namespace
