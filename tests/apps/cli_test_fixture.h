#pragma once

// Runs the real `mnrl` program as a user would: each test gets a fresh empty working directory,
// so "nothing was written" is checkable.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace mnrl_cli_test {
namespace fs = std::filesystem;

struct Outcome {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Each test runs in a fresh empty working directory, so "nothing was written" is checkable.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("mnrl_cli_test_" + std::to_string(::getpid()) + "_" +
                                        info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  Outcome run(const std::string& arguments) const {
    return run_shell("'" MNRL_BINARY "' " + arguments);
  }

  // Runs a shell command (bash) in the test directory.
  Outcome run_shell(const std::string& shell_command) const {
    const std::string command =
        "cd '" + dir_.string() + "' && exec bash -c '" + single_quoted_body(shell_command) +
        "' 2>&1";
    Outcome outcome;
    FILE* pipe = popen(command.c_str(), "r");
    std::array<char, 4096> buffer{};
    while (std::fgets(buffer.data(), buffer.size(), pipe)) outcome.output += buffer.data();
    const int status = pclose(pipe);
    // As a shell reports it: 128 + the signal that ended the process.
    outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return outcome;
  }

  // A short finished PPO CartPole run in out/ with checkpoints at steps 1000, 2000 and 3000.
  void train_short_run() const {
    const auto r = run("train " MNRL_SOURCE_DIR "/configs/cartpole_ppo.yaml"
                       " --set train.total_steps=3000 --set checkpoint.interval=1000 "
                       "--set train.eval_episodes=2 --run-dir out");
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }

  // `text` for the inside of a shell single-quoted string.
  static std::string single_quoted_body(const std::string& text) {
    std::string out;
    for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out;
  }

  fs::path write_config(const std::string& text, const std::string& name = "x.yaml") const {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }

  bool wrote_nothing_but(const fs::path& config) const {
    for (const auto& entry : fs::directory_iterator(dir_)) {
      if (entry.path() != config) return false;
    }
    return true;
  }

  fs::path dir_;
};

inline std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Checks the exit code and that the output holds `fragment`, printing the output otherwise.
inline void expect_outcome(const Outcome& r, int exit_code, const std::string& fragment) {
  EXPECT_EQ(r.exit_code, exit_code) << r.output;
  EXPECT_NE(r.output.find(fragment), std::string::npos)
      << "expected: " << fragment << "\ngot: " << r.output;
}

}  // namespace mnrl_cli_test
