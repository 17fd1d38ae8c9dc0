// Checkpoints written by an earlier mnrl (tests/data/old_checkpoints, see its README) load, and
// saving what they restored writes the same bytes again: the state format of every agent, env,
// wrapper, buffer and evaluator they hold has not changed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "envs/vector_env.h"
#include "experiments/checkpoints/training_checkpoint.h"
#include "experiments/config/experiment_options.h"
#include "experiments/evaluation/evaluator.h"
#include "experiments/training/agent_factory.h"
#include "run_files.h"

namespace mnrl::experiments {
namespace {
namespace fs = std::filesystem;

const fs::path kOldCheckpoints = MNRL_SOURCE_DIR "/tests/data/old_checkpoints";

std::vector<std::string> old_checkpoint_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kOldCheckpoints)) {
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class OldCheckpointTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("mnrl_old_checkpoint_test_" + std::to_string(::getpid()) + "_" + GetParam());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
};

TEST_P(OldCheckpointTest, LoadsAndSavesBackTheSameBytes) {
  const fs::path old = kOldCheckpoints / GetParam();
  const ExperimentOptions options = load_experiment((old / "config.yaml").string(), {});
  // Seeds and starting weights do not matter: the checkpoint replaces them.
  auto envs = envs::make_vector_env(options.env, 1);
  auto agent = make_agent(options, envs->spec());
  Evaluator evaluator(options.env, options.train.eval_episodes, 2, *envs);
  TrainingParts parts;
  parts.agents = {agent.get()};
  parts.envs = {envs.get()};
  parts.evaluator = &evaluator;

  LoopState loop;
  EXPECT_TRUE(restore_training_checkpoint(Checkpoint::open(old), options, loop, parts))
      << "the training envs' episodes were not restored";
  const fs::path saved = save_training_checkpoint(dir_, options, loop, parts);

  int compared = 0;
  for (const char* file : {"agent.state", "envs.state", "training.state", "replay.bin"}) {
    ASSERT_EQ(fs::exists(old / file), fs::exists(saved / file)) << file;
    if (!fs::exists(old / file)) continue;
    EXPECT_TRUE(read_file(old / file) == read_file(saved / file)) << file << " differs";
    ++compared;
  }
  EXPECT_GE(compared, 3);
}

INSTANTIATE_TEST_SUITE_P(Runs, OldCheckpointTest, ::testing::ValuesIn(old_checkpoint_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace mnrl::experiments
