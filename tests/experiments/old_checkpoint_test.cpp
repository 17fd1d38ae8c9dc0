// Checkpoints written by an earlier mnrl (tests/data/old_checkpoints, see its README) load, and
// saving what they restored writes the same bytes again: the state format of every agent, env,
// wrapper, buffer and evaluator they hold has not changed. And the envs they restore play on as
// that mnrl's did: stepped with fixed actions, they end in the state it saved after the same
// steps (envs_after_fixed_actions.state, written by that mnrl with MNRL_WRITE_OLD_STATES=1),
// which a load that put fields in the wrong places would not reach.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <variant>
#include <vector>

#include "core/state_stream.h"
#include "envs/space.h"
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

// Steps `envs` with actions that depend only on the step and the env (the same on every
// machine) and returns their saved state.
std::string state_after_fixed_actions(envs::VectorEnv& envs, int steps) {
  const envs::Space& space = envs.spec().action_space;
  const auto num_envs = static_cast<std::size_t>(envs.num_envs());
  std::vector<std::int64_t> indices(num_envs);
  std::vector<float> values(num_envs * static_cast<std::size_t>(envs::flat_size(space)));
  for (int t = 0; t < steps; ++t) {
    if (const auto* discrete = std::get_if<envs::Discrete>(&space)) {
      for (std::size_t i = 0; i < num_envs; ++i) {
        indices[i] = (t * 7 + static_cast<std::int64_t>(i) * 3) % discrete->n;
      }
      envs.step({indices.data(), nullptr, num_envs});
    } else {
      const auto& box = std::get<envs::Box>(space);
      for (std::size_t k = 0; k < values.size(); ++k) {
        const std::size_t j = k % box.low.size();
        const double fraction =
            static_cast<double>((t * 37 + static_cast<int>(k) * 11) % 100) / 100;
        values[k] = static_cast<float>(box.low[j] + (box.high[j] - box.low[j]) * fraction);
      }
      envs.step({nullptr, values.data(), num_envs});
    }
  }
  core::StateWriter out;
  envs.save_state(out);
  return out.bytes();
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

TEST_P(OldCheckpointTest, LoadsSavesBackTheSameBytesAndPlaysOnAsBefore) {
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
  EXPECT_TRUE(restore_training_checkpoint(Checkpoint::open(old), options.subject(), loop, parts))
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

  const fs::path after = old / "envs_after_fixed_actions.state";
  const std::string played = state_after_fixed_actions(*envs, 300);
  if (std::getenv("MNRL_WRITE_OLD_STATES")) {
    std::ofstream(after, std::ios::binary) << played;
  }
  ASSERT_TRUE(fs::exists(after));
  EXPECT_TRUE(read_file(after) == played) << "the restored envs played on differently";
}

INSTANTIATE_TEST_SUITE_P(Runs, OldCheckpointTest, ::testing::ValuesIn(old_checkpoint_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace mnrl::experiments
