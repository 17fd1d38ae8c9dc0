// `mnrl export`: the TorchScript module of a checkpoint's greedy policy gives, on raw
// observations, the actions the agent gives on the normalized ones, for every output kind, for
// images (uint8, 0/1 grids and 0..255 pixels) through a convolutional encoder or an MLP, and
// for recurrent policies, whose memory the caller carries from step to step.
#include <gtest/gtest.h>
#include <torch/script.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "envs/env_options.h"
#include "envs/registry.h"
#include "envs/space.h"
#include "envs/wrapper.h"
#include "experiments/evaluation/checkpoint_evaluation.h"
#include "experiments/training/action_buffers.h"
#include "experiments/training/training.h"
#include "recording_metrics.h"

namespace mnrl::experiments {
namespace {
namespace fs = std::filesystem;

// MinAtar Breakout drawn in 0/255 pixels: a uint8 image whose bounds are 0 and 255, which
// agents scale by 1/255 (envs::byte_scale), as they would a camera's frames.
class BrightBreakout : public envs::Wrapper {
 public:
  BrightBreakout() : Wrapper(envs::Registry::global().make("MinAtar/Breakout-v1"), "BrightBreakout") {
    auto& box = std::get<envs::Box>(spec_.observation_space);
    std::fill(box.high.begin(), box.high.end(), 255.0f);
    spec_.id = "test/BrightBreakout-v0";
  }
  void reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) override {
    Wrapper::reset(observation, seed);
    brighten(observation);
  }
  envs::StepResult step(const envs::ActionRef& action, core::TypedPtr observation) override {
    const envs::StepResult result = Wrapper::step(action, observation);
    brighten(observation);
    return result;
  }

 private:
  void brighten(core::TypedPtr observation) const {
    std::uint8_t* bytes = observation.bytes();
    const std::int64_t size = envs::flat_size(spec_.observation_space);
    for (std::int64_t i = 0; i < size; ++i) bytes[i] = bytes[i] ? 255 : 0;
  }
};
MNRL_REGISTER_ENV("test/BrightBreakout-v0", BrightBreakout);

struct ExportCase {
  std::string name;
  std::string config;
  std::vector<std::string> overrides;
};

void PrintTo(const ExportCase& c, std::ostream* out) { *out << c.name; }

class PolicyExportTest : public ::testing::TestWithParam<ExportCase> {
 protected:
  void SetUp() override {
    run_dir_ = fs::temp_directory_path() /
               ("mnrl_policy_export_test_" + std::to_string(::getpid()) + "_" + GetParam().name);
    fs::remove_all(run_dir_);
  }
  void TearDown() override { fs::remove_all(run_dir_); }
  fs::path run_dir_;
};

// The envs without observation normalization: what a deployed policy sees.
envs::EnvOptions without_normalization(envs::EnvOptions env) {
  auto& wrappers = env.wrappers;
  wrappers.erase(std::remove_if(wrappers.begin(), wrappers.end(),
                                [](const envs::WrapperOptions& w) {
                                  return w.type == "normalize_observation";
                                }),
                 wrappers.end());
  return env;
}

// A case's policy, trained briefly and exported, and what its agent did on 1,000 observations
// (10 evaluation envs x 100 steps): the raw observations, and the agent's actions on their
// normalized copies.
struct Played {
  std::string module;
  bool discrete = true;
  std::int64_t observation_size = 0, action_size = 1;
  bool byte_observations = false;     // uint8 (held below as floats, which are exact)
  std::vector<float> observations;    // raw, row after row
  std::vector<std::int64_t> indices;  // Discrete
  std::vector<float> values;          // Box, action_size per row
  // 1 where the row's observation begins an episode (a recurrent policy's memory restarts).
  std::vector<std::uint8_t> episode_starts;
};

constexpr int kEnvs = 10;
constexpr int kSteps = 100;

Played train_export_and_play(const ExportCase& c, const fs::path& run_dir) {
  const ExperimentOptions options =
      load_experiment(std::string(MNRL_SOURCE_DIR "/configs/") + c.config, c.overrides);
  CheckpointSettings checkpoints;
  checkpoints.run_dir = run_dir;
  RecordingMetrics metrics;
  train(options, metrics, &checkpoints, nullptr);
  Played played;
  const PolicyExport exported = export_checkpoint_policy(run_dir, [](const std::string&) {});
  EXPECT_EQ(exported.info.algo, options.algo);
  played.module = exported.module;

  // Two copies of the same evaluation envs, stepped with the same actions: one normalizes
  // observations with the checkpoint's statistics (the agent's view), one does not.
  CheckpointPolicy policy(run_dir, 0, [](const std::string&) {});
  auto normalized = envs::make_evaluation_vector_env(policy.options().env, kEnvs, 5, policy.envs());
  auto raw = envs::make_evaluation_vector_env(without_normalization(policy.options().env), kEnvs, 5,
                                              policy.envs());
  normalized->reset();
  raw->reset();
  const envs::Space& action_space = normalized->spec().action_space;
  played.discrete = envs::is_discrete(action_space);
  played.action_size = played.discrete ? 1 : envs::flat_size(action_space);
  played.observation_size = raw->observation_size();
  played.byte_observations = raw->observations().dtype() == core::Dtype::uint8;
  ActionBuffers actions(action_space, kEnvs);
  policy.player().reset_evaluation_memory();
  std::vector<std::uint8_t> starts(kEnvs, 1);
  for (int step = 0; step < kSteps; ++step) {
    played.episode_starts.insert(played.episode_starts.end(), starts.begin(), starts.end());
    std::vector<float> scratch;
    const float* observations = core::as_floats(
        raw->observations(), static_cast<std::size_t>(kEnvs * played.observation_size), scratch,
        1.0f);
    played.observations.insert(played.observations.end(), observations,
                               observations + kEnvs * played.observation_size);
    policy.player().act_greedy(normalized->observations(), kEnvs, actions.out());
    const envs::ActionBatch batch = actions.batch();
    if (played.discrete) {
      played.indices.insert(played.indices.end(), batch.indices, batch.indices + kEnvs);
    } else {
      played.values.insert(played.values.end(), batch.values, batch.values + batch.size);
    }
    normalized->step(batch);
    raw->step(batch);
    policy.player().evaluation_episodes_ended(normalized->terminated(), normalized->truncated(),
                                              kEnvs);
    for (int i = 0; i < kEnvs; ++i)
      starts[i] = normalized->terminated()[i] || normalized->truncated()[i];
  }
  return played;
}

TEST_P(PolicyExportTest, ModuleActsAsTheAgentOnAThousandObservations) {
  const Played played = train_export_and_play(GetParam(), run_dir_);
  std::istringstream bytes(played.module);
  torch::jit::Module module = torch::jit::load(bytes);
  // A recurrent policy's memory, carried from step to step and zeroed where an episode starts.
  const bool recurrent = module.find_method("initial_state").has_value();
  at::Tensor state;
  if (recurrent) state = module.run_method("initial_state", kEnvs).toTensor();
  int differing = 0;
  double largest_difference = 0.0;
  // In batches of the envs' size, as the agent acted (a product's rounding may depend on it).
  for (int step = 0; step < kSteps; ++step) {
    const std::int64_t first_row = static_cast<std::int64_t>(step) * kEnvs;
    // As the env gives them: uint8 images go in as uint8.
    const at::Tensor observations =
        torch::from_blob(
            const_cast<float*>(played.observations.data() + first_row * played.observation_size),
            {kEnvs, played.observation_size}, torch::kFloat32)
            .to(played.byte_observations ? torch::kUInt8 : torch::kFloat32);
    at::Tensor actions;
    if (recurrent) {
      const at::Tensor starts =
          torch::from_blob(const_cast<std::uint8_t*>(played.episode_starts.data() + first_row),
                           {kEnvs, 1}, torch::kUInt8);
      state = state.masked_fill(starts.to(torch::kBool), 0.0f);
      const auto outputs = module.forward({observations, state}).toTuple();
      actions = outputs->elements()[0].toTensor().contiguous();
      state = outputs->elements()[1].toTensor();
    } else {
      actions = module.forward({observations}).toTensor().contiguous();
    }
    ASSERT_EQ(actions.size(0), kEnvs);
    if (played.discrete) {
      ASSERT_EQ(actions.scalar_type(), torch::kInt64);
      for (int i = 0; i < kEnvs; ++i) {
        differing += actions.data_ptr<std::int64_t>()[i] != played.indices[first_row + i];
      }
    } else {
      ASSERT_EQ(actions.scalar_type(), torch::kFloat32);
      ASSERT_EQ(actions.size(1), played.action_size);
      for (std::int64_t j = 0; j < kEnvs * played.action_size; ++j) {
        const double difference = std::fabs(actions.data_ptr<float>()[j] -
                                            played.values[first_row * played.action_size + j]);
        largest_difference = std::max(largest_difference, difference);
      }
    }
  }
  EXPECT_EQ(differing, 0) << "of " << kEnvs * kSteps << " actions";
  EXPECT_LE(largest_difference, 1e-6);
}

// The same module loads in Python (Debian's python3-torch), as a user's script would load it.
TEST_P(PolicyExportTest, PythonTorchLoadsTheModuleAndActsTheSame) {
  if (std::system("/usr/bin/python3 -c 'import torch' > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "python3 cannot import torch (Debian: python3-torch)";
  }
  const Played played = train_export_and_play(GetParam(), run_dir_);
  const fs::path module = run_dir_ / "policy.pt";
  const fs::path observations = run_dir_ / "observations.bin";
  const fs::path actions = run_dir_ / "actions.bin";
  const auto write = [](const fs::path& path, const void* data, std::size_t bytes) {
    std::ofstream(path, std::ios::binary)
        .write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  };
  write(module, played.module.data(), played.module.size());
  write(observations, played.observations.data(), played.observations.size() * sizeof(float));
  const fs::path starts = run_dir_ / "episode_starts.bin";
  write(starts, played.episode_starts.data(), played.episode_starts.size());
  if (played.discrete) {
    write(actions, played.indices.data(), played.indices.size() * sizeof(std::int64_t));
  } else {
    write(actions, played.values.data(), played.values.size() * sizeof(float));
  }
  const std::string command = std::string("/usr/bin/python3 " MNRL_SOURCE_DIR
                                          "/tests/experiments/policy_export_check.py ") +
                              module.string() + " " + observations.string() + " " +
                              std::to_string(played.observation_size) + " " + actions.string() +
                              " " + (played.discrete ? "discrete" : "box") + " " +
                              std::to_string(kEnvs) + " " + starts.string() + " 2>&1";
  std::string output;
  if (std::FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[512];
    while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
    ASSERT_EQ(::pclose(pipe), 0) << output;
  }
  int rows = 0, differing = -1;
  double largest = -1.0;
  ASSERT_EQ(
      std::sscanf(output.c_str(), "rows %d differing %d largest %lf", &rows, &differing, &largest),
      3)
      << output;
  EXPECT_EQ(rows, kEnvs * kSteps);
  EXPECT_EQ(differing, 0);
  EXPECT_LE(largest, 1e-6);
}

INSTANTIATE_TEST_SUITE_P(
    Outputs, PolicyExportTest,
    ::testing::Values(
        ExportCase{"ppo_logits_argmax", "cartpole_ppo.yaml", {"train.total_steps=512"}},
        ExportCase{"ppo_gsde_mean_clipped_normalized",
                   "mountaincarcontinuous_ppo.yaml",
                   {"train.total_steps=2000", "train.eval_episodes=1"}},
        ExportCase{"ppo_squashed_mean",
                   "pendulum_ppo.yaml",
                   {"train.total_steps=4096", "train.eval_episodes=1", "ppo.use_sde=false",
                    "network.squash_output=true"}},
        ExportCase{"dqn_dueling_argmax",
                   "cartpole_rainbowlite.yaml",
                   {"train.total_steps=1500", "train.eval_episodes=1"}},
        // Each return distribution's Q-values, over dueling heads, noisy layers (exported
        // without their noise) and, for IQN, the embedded policy fractions.
        ExportCase{"c51_dueling_noisy_expectation",
                   "cartpole_rainbowlite.yaml",
                   {"train.total_steps=1500", "train.eval_episodes=1", "dqn.distributional=c51",
                    "dqn.v_min=0", "dqn.v_max=100", "dqn.noisy=true"}},
        ExportCase{"qr_quantile_mean",
                   "cartpole_qrdqn.yaml",
                   {"train.total_steps=1500", "train.eval_episodes=1"}},
        ExportCase{"iqn_dueling_wang_risk",
                   "cartpole_rainbowlite.yaml",
                   {"train.total_steps=1500", "train.eval_episodes=1", "dqn.distributional=iqn",
                    "dqn.risk=wang", "dqn.risk_eta=-0.5", "dqn.quantile_samples=8",
                    "dqn.target_quantile_samples=8", "dqn.policy_quantile_samples=8"}},
        // Memory: an LSTM of two layers, a GRU after normalized observations (Box actions,
        // compared to 1e-6: a memory lost would show; episodes of 30 steps restart it), and a
        // GRU after a convolutional encoder.
        ExportCase{
            "ppo_lstm_two_layers",
            "pendulum_ppo.yaml",
            {"env.id=PendulumNoVel-v1", "env.wrappers=[{type: time_limit, max_episode_steps: 30}]",
             "train.total_steps=1024", "train.eval_episodes=1", "ppo.use_sde=false",
             "ppo.seq_len=16", "network.recurrent.type=lstm", "network.recurrent.layers=2",
             "network.recurrent.hidden_size=16"}},
        ExportCase{"ppo_gru_normalized",
                   "mountaincarcontinuous_ppo.yaml",
                   {"env.id=MountainCarContinuousNoVel-v0", "train.total_steps=1024",
                    "train.eval_episodes=1", "ppo.use_sde=false", "network.recurrent.type=gru",
                    "network.recurrent.hidden_size=16"}},
        ExportCase{
            "a2c_gru_on_pixels",
            "minatar_breakout_ppo.yaml",
            {"algo=a2c", "a2c.n_steps=16", "train.total_steps=512", "train.eval_episodes=1",
             "network.cnn_channels=[8]", "network.cnn_features=0", "network.hidden_sizes=[32]",
             "network.recurrent.type=gru", "network.recurrent.hidden_size=16"}},
        ExportCase{"r2d2_dueling_lstm",
                   "cartpole_novel_r2d2.yaml",
                   {"train.total_steps=1500", "train.eval_episodes=1", "r2d2.learning_starts=500",
                    "r2d2.batch_size=8", "network.recurrent.hidden_size=16"}},
        ExportCase{"a3c_shared_model",
                   "cartpole_a3c.yaml",
                   {"train.total_steps=2000", "train.eval_episodes=1"}},
        ExportCase{"sac_tanh_mean_on_bounds",
                   "pendulum_sac.yaml",
                   {"train.total_steps=600", "train.eval_episodes=1", "sac.batch_size=32",
                    "network.hidden_sizes=[32,32]"}},
        ExportCase{"sac_gsde_clipped_tanh_mean",
                   "mountaincarcontinuous_sac.yaml",
                   {"train.total_steps=600", "train.eval_episodes=1", "sac.batch_size=32"}},
        ExportCase{"td3_tanh_mean_on_bounds",
                   "pendulum_td3.yaml",
                   {"train.total_steps=600", "train.eval_episodes=1", "td3.batch_size=32",
                    "td3.learning_starts=300", "network.hidden_sizes=[32,32]"}},
        ExportCase{"dqn_minatar_cnn",
                   "minatar_breakout_dqn.yaml",
                   {"train.total_steps=1500", "train.eval_episodes=1", "dqn.learning_starts=500"}},
        ExportCase{
            "ppo_cnn_on_pixels",
            "minatar_breakout_ppo.yaml",
            {"env.id=test/BrightBreakout-v0", "train.total_steps=2048", "train.eval_episodes=1",
             "network.cnn_channels=[8]", "network.cnn_features=0", "network.hidden_sizes=[32]"}},
        ExportCase{
            "dqn_mlp_on_pixels",
            "minatar_breakout_dqn.yaml",
            {"env.id=test/BrightBreakout-v0", "network.encoder=mlp", "network.hidden_sizes=[64]",
             "train.total_steps=1500", "train.eval_episodes=1", "dqn.learning_starts=500"}}),
    [](const ::testing::TestParamInfo<ExportCase>& info) { return info.param.name; });

}  // namespace
}  // namespace mnrl::experiments
