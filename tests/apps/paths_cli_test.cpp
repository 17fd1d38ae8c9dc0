// Files a run names (env plugins, env data files): found from any working directory, and
// compared with the ones the run trained with.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "cli_test_fixture.h"
#include "tests/plugins/test_plugins.h"

namespace {
using namespace mnrl_cli_test;

class PathsCliTest : public CliTest {
 protected:
  // A short Walk-v0 PPO run in out/, trained with a copy of the walk plugin at
  // plugins/libwalk.so, named relative to the config file.
  void train_walk_run() {
    fs::create_directories(dir_ / "plugins");
    fs::copy_file(mnrl::test_plugins::path("walk"), dir_ / "plugins" / "libwalk.so");
    write_config(
        "algo: ppo\nenv: {id: Walk-v0, plugin: plugins/libwalk.so, num_envs: 2}\n"
        "ppo: {n_steps: 16, batch_size: 32}\n"
        "train: {total_steps: 256, eval_episodes: 2}\n",
        "walk.yaml");
    const auto r = run("train walk.yaml --run-dir out");
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }

  // Rebuilds the plugin as far as its bytes go: the same envs, another CRC-32C.
  void change_plugin_bytes() const {
    std::ofstream(dir_ / "plugins" / "libwalk.so", std::ios::app | std::ios::binary) << "rebuilt";
  }
};

// eval and export say, as a resume does, that the plugin is not the one the run trained with.
TEST_F(PathsCliTest, EvalAndExportWarnOfARebuiltPlugin) {
  train_walk_run();
  const std::string warning = "warning: the env plugin is not the one the run was trained with";
  const auto same = run("eval out --episodes 2");
  EXPECT_EQ(same.exit_code, 0) << same.output;
  EXPECT_EQ(same.output.find(warning), std::string::npos) << same.output;
  change_plugin_bytes();
  expect_outcome(run("eval out --episodes 2"), 0, "mnrl eval: " + warning);
  expect_outcome(run("export out -o policy.pt"), 0, "mnrl export: " + warning);
  // A resume records the new plugin: what the run trains with from then on.
  std::string config = read_file(dir_ / "out" / "config.yaml");
  config.replace(config.find("total_steps: 256"), 16, "total_steps: 512");
  std::ofstream(dir_ / "out" / "config.yaml") << config;
  expect_outcome(run("train --resume out"), 0, "mnrl: " + warning);
  const auto after_resume = run("eval out --episodes 2");
  EXPECT_EQ(after_resume.exit_code, 0) << after_resume.output;
  EXPECT_EQ(after_resume.output.find(warning), std::string::npos) << after_resume.output;
}

// A config's relative paths (env.plugin, path kwargs) are taken from its own directory, and the
// run records them absolute: it trains, evaluates, resumes and exports from any directory.
TEST_F(PathsCliTest, AConfigsPathsAreRelativeToItsDirectory) {
  const fs::path project = dir_ / "project";
  fs::create_directories(project / "plugins");
  fs::copy_file(mnrl::test_plugins::path("data_file"), project / "plugins" / "libdata_file.so");
  std::ofstream(project / "length.txt") << "3\n";
  std::ofstream(project / "robot.yaml")
      << "algo: ppo\nenv: {id: FileWalk-v0, plugin: plugins/libdata_file.so, num_envs: 2,\n"
         "      kwargs: {length_file: length.txt}}\n"
         "ppo: {n_steps: 16, batch_size: 32}\ntrain: {total_steps: 256, eval_episodes: 2}\n";
  ASSERT_EQ(run("train project/robot.yaml --run-dir out").exit_code, 0);
  const std::string config = read_file(dir_ / "out" / "config.yaml");
  EXPECT_NE(config.find("plugin: " + (project / "plugins" / "libdata_file.so").string()),
            std::string::npos)
      << config;
  EXPECT_NE(config.find("length_file: " + (project / "length.txt").string()), std::string::npos)
      << config;
  fs::create_directories(dir_ / "elsewhere");
  const std::string from_elsewhere = "cd elsewhere && '" MNRL_BINARY "' ";
  expect_outcome(run_shell(from_elsewhere + "eval ../out --episodes 2"), 0,
                 "ppo on FileWalk-v0, step 256");
  expect_outcome(run_shell(from_elsewhere + "export ../out -o policy.pt"), 0, "wrote policy.pt");
  std::string longer = config;
  longer.replace(longer.find("total_steps: 256"), 16, "total_steps: 512");
  std::ofstream(dir_ / "out" / "config.yaml") << longer;
  expect_outcome(run_shell(from_elsewhere + "train --resume ../out"), 0, "trained 512 steps");

  // A --set path is the command line's: taken from the working directory.
  std::ofstream(dir_ / "here.txt") << "4\n";
  const auto set =
      run("train project/robot.yaml --set env.kwargs.length_file=here.txt "
          "--run-dir set");
  ASSERT_EQ(set.exit_code, 0) << set.output;
  EXPECT_NE(
      read_file(dir_ / "set" / "config.yaml").find("length_file: " + (dir_ / "here.txt").string()),
      std::string::npos);

  // A missing file is named where it was looked for.
  std::ofstream(project / "moved.yaml") << "env: {id: FileWalk-v0, plugin: lib/libdata_file.so}\n";
  expect_outcome(run("train project/moved.yaml"), 2,
                 "env.plugin: cannot load plugin '" +
                     (project / "lib" / "libdata_file.so").string() + "': no such file");
}

}  // namespace
