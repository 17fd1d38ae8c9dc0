// Training on a GPU (train.device): PPO learns CartPole on cuda; a PPO update and a DQN update on
// cuda agree with the CPU's; resuming on cuda is bitwise; checkpoints move between cuda and cpu (a
// cuda run evaluates and resumes on the CPU, a CPU run resumes on cuda). Skipped, saying why,
// where LibTorch has no CUDA or no GPU is visible; bench/gpu/run.sh runs them on a GPU machine.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <torch/cuda.h>

#include "core/files.h"
#include "core/state_stream.h"
#include "experiments/checkpoints/checkpoint.h"
#include "experiments/config/experiment_options.h"
#include "experiments/evaluation/checkpoint_evaluation.h"
#include "experiments/runs/training_run.h"
#include "run_files.h"

namespace mnrl::experiments {
namespace {
namespace fs = std::filesystem;

// The float arrays at the head of a one-agent run's agent.state (the "agents" section, then the
// agent's own state): `parameter_arrays` arrays after the agent's tag (its parameters; DQN's
// target network next), then Adam's two moments.
std::vector<std::vector<float>> agent_arrays(const std::string& bytes, const std::string& agent_tag,
                                             int parameter_arrays) {
  core::StateReader in(bytes, "agent.state");
  const auto floats = [&] {
    std::vector<float> values(static_cast<std::size_t>(in.value<std::uint64_t>()));
    for (float& value : values) value = in.value<float>();
    return values;
  };
  in.expect_tag("agents");
  in.value<std::uint64_t>();
  in.expect_tag(agent_tag);
  std::vector<std::vector<float>> arrays;
  for (int i = 0; i < parameter_arrays; ++i) arrays.push_back(floats());
  in.expect_tag("adam");
  in.value<std::int64_t>();  // steps taken
  arrays.push_back(floats());
  arrays.push_back(floats());
  return arrays;
}

std::vector<std::vector<float>> last_agent_arrays(const fs::path& run_dir,
                                                  const std::string& agent_tag,
                                                  int parameter_arrays) {
  return agent_arrays(read_file(list_checkpoints(run_dir).back() / "agent.state"), agent_tag,
                      parameter_arrays);
}

// Within `bound(k)` of each other, array by array; `names` says which is which.
void expect_arrays_near(const std::vector<std::vector<float>>& cpu,
                        const std::vector<std::vector<float>>& cuda,
                        const std::vector<std::string>& names,
                        const std::function<double(std::size_t, double)>& bound) {
  ASSERT_EQ(cpu.size(), names.size());
  ASSERT_EQ(cuda.size(), names.size());
  for (std::size_t k = 0; k < names.size(); ++k) {
    const std::vector<float>& a = cpu[k];
    const std::vector<float>& b = cuda[k];
    ASSERT_EQ(a.size(), b.size()) << names[k];
    double scale = 0.0, largest = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      scale = std::max(scale, std::abs(static_cast<double>(a[i])));
      largest = std::max(largest, std::abs(static_cast<double>(a[i]) - b[i]));
    }
    EXPECT_LE(largest, bound(k, scale)) << names[k];
  }
}

// The metrics rows whose name contains `part` (step,name,value).
std::string rows_named(const std::string& metrics, const std::string& part) {
  std::istringstream in(metrics);
  std::string line, rows;
  while (std::getline(in, line)) {
    if (line.find(part) != std::string::npos) rows += line + "\n";
  }
  return rows;
}

// The parser above reads what the agents write: checked on the CPU, where CI runs it (the cuda
// tests below compare checkpoints through it).
TEST(AgentStateArrays, ReadPpoDqnAndSacCheckpoints) {
  const fs::path dir =
      fs::temp_directory_path() / ("mnrl_agent_arrays_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  std::FILE* quiet = std::fopen("/dev/null", "w");
  TrainingRunSettings settings;
  settings.console = quiet;
  const auto train = [&](const std::string& config, const std::vector<std::string>& overrides) {
    settings.run_dir = (dir / config).string();
    run_training(load_experiment(MNRL_SOURCE_DIR "/configs/" + config, overrides), settings);
    return dir / config;
  };
  // [64, 64] tanh trunks for the policy (2 logits) and the value of 4 observations.
  constexpr std::size_t kPpoParameters = (4 * 64 + 64) * 2 + (64 * 64 + 64) * 2 + 64 * 2 + 2 + 65;
  const auto ppo = last_agent_arrays(
      train("cartpole_ppo.yaml", {"train.total_steps=256", "train.eval_interval=0"}),
      "actor_critic", 1);
  ASSERT_EQ(ppo.size(), 3u);
  for (const auto& array : ppo) EXPECT_EQ(array.size(), kPpoParameters);
  // [256, 256] to 2 Q values, online and target.
  constexpr std::size_t kDqnParameters = 4 * 256 + 256 + 256 * 256 + 256 + 256 * 2 + 2;
  const auto dqn = last_agent_arrays(
      train("cartpole_dqn.yaml", {"train.total_steps=600", "dqn.learning_starts=500",
                                  "train.eval_interval=0", "checkpoint.replay_buffer=false"}),
      "dqn", 2);
  ASSERT_EQ(dqn.size(), 4u);
  for (const auto& array : dqn) EXPECT_EQ(array.size(), kDqnParameters);
  // Pendulum's 3 observations and 1 action: two [64, 64] critics of (s, a), an actor with a mean
  // and a log-std head, log alpha; the targets and the critics' Adam cover the critics.
  constexpr std::size_t kCritic = 4 * 64 + 64 + 64 * 64 + 64 + 65;
  constexpr std::size_t kActor = 3 * 64 + 64 + 64 * 64 + 64 + 2 * 65;
  const auto sac = last_agent_arrays(
      train("pendulum_sac.yaml",
            {"train.total_steps=300", "train.eval_interval=0", "checkpoint.replay_buffer=false"}),
      "sac", 2);
  ASSERT_EQ(sac.size(), 4u);
  EXPECT_EQ(sac[0].size(), 2 * kCritic + kActor + 1);
  for (std::size_t k = 1; k < sac.size(); ++k) EXPECT_EQ(sac[k].size(), 2 * kCritic);
  std::fclose(quiet);
  fs::remove_all(dir);
}

class CudaTrainingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!torch::cuda::is_available()) {
      GTEST_SKIP() << "no GPU usable here (a CPU-only LibTorch, or no GPU visible)";
    }
    dir_ = fs::temp_directory_path() / ("mnrl_gpu_training_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    settings_.console = quiet_;
  }
  void TearDown() override {
    fs::remove_all(dir_);
    std::fclose(quiet_);
  }

  TrainingRunResult run(const std::string& config, std::vector<std::string> overrides,
                        const std::string& name) {
    settings_.run_dir = (dir_ / name).string();
    return run_training(load_experiment(MNRL_SOURCE_DIR "/configs/" + config, overrides),
                        settings_);
  }

  // Sets `key: value` in the run's config.yaml (a line of its own there).
  void set_in_config(const fs::path& run_dir, const std::string& key, const std::string& value) {
    std::string text = read_file(run_dir / "config.yaml");
    const std::size_t at = text.find("\n  " + key + ":");
    ASSERT_NE(at, std::string::npos) << key;
    const std::size_t end = text.find('\n', at + 1);
    text.replace(at, end - at, "\n  " + key + ": " + value);
    core::write_file_atomically(run_dir / "config.yaml", text);
  }

  // Trains `config` with `overrides` twice, with train.cuda_graphs off and on (on: an error
  // where a step cannot be captured), and expects the same episodes and the same agent state
  // at the end, bit for bit; the graphed run's checkpoint then plays on the CPU (mnrl eval
  // captures nothing).
  void expect_graphs_end_where_eager_steps_end(const std::string& config,
                                               const std::vector<std::string>& overrides) {
    auto eager = overrides, graphed = overrides;
    eager.push_back("train.cuda_graphs=off");
    graphed.push_back("train.cuda_graphs=on");
    run(config, eager, "eager");
    run(config, graphed, "graphed");
    EXPECT_EQ(rows_named(metrics_without_times(dir_ / "eager"), "episodic_return"),
              rows_named(metrics_without_times(dir_ / "graphed"), "episodic_return"));
    EXPECT_TRUE(read_file(list_checkpoints(dir_ / "eager").back() / "agent.state") ==
                read_file(list_checkpoints(dir_ / "graphed").back() / "agent.state"));
    const auto evaluation = evaluate_checkpoint(dir_ / "graphed", 2, 7, false,
                                                [](const std::string& why) { FAIL() << why; });
    EXPECT_EQ(evaluation.result.episodes, 2);
  }

  fs::path dir_;
  TrainingRunSettings settings_;
  std::FILE* quiet_ = std::fopen("/dev/null", "w");
};

TEST_F(CudaTrainingTest, PpoLearnsCartPoleAndItsCheckpointPlaysOnTheCpu) {
  const auto result = run("cartpole_ppo.yaml", {"seed=1", "train.device=cuda"}, "ppo");
  ASSERT_FALSE(result.training.interrupted);
  EXPECT_GE(result.training.final_evaluation.mean_return, 475.0);
  // mnrl eval: the policy plays on the CPU, from the tensors the GPU run saved.
  const auto evaluation = evaluate_checkpoint(dir_ / "ppo", 10, 7, false,
                                              [](const std::string& why) { FAIL() << why; });
  EXPECT_GE(evaluation.result.mean_return, 475.0);
}

// train.precision: bf16 (matmuls in bfloat16, weights and Adam in float32) learns what fp32
// learns: PPO on CartPole to the same bar, its steps captured as CUDA graphs, and the
// checkpoint plays on the CPU in float32. (MinAtar Breakout in bf16: bench/gpu/run.sh checks.)
TEST_F(CudaTrainingTest, PpoLearnsCartPoleInBf16) {
  const auto result =
      run("cartpole_ppo.yaml",
          {"seed=1", "train.device=cuda", "train.precision=bf16", "train.cuda_graphs=on"}, "bf16");
  ASSERT_FALSE(result.training.interrupted);
  EXPECT_GE(result.training.final_evaluation.mean_return, 475.0);
  const auto evaluation = evaluate_checkpoint(dir_ / "bf16", 10, 7, false,
                                              [](const std::string& why) { FAIL() << why; });
  EXPECT_GE(evaluation.result.mean_return, 475.0);
}

// DQN in bf16 and tf32, graphed: a short run ends with finite losses and a checkpoint that
// plays on the CPU.
TEST_F(CudaTrainingTest, DqnTrainsInBf16AndTf32AsCudaGraphs) {
  for (const char* precision : {"bf16", "tf32"}) {
    const auto result =
        run("cartpole_dqn.yaml",
            {"seed=1", "train.device=cuda", "train.total_steps=3000", "dqn.learning_starts=500",
             "train.cuda_graphs=on", std::string("train.precision=") + precision},
            precision);
    ASSERT_FALSE(result.training.interrupted) << precision;
    const std::string losses = rows_named(metrics_without_times(dir_ / precision), "td_loss");
    ASSERT_FALSE(losses.empty()) << precision;
    EXPECT_EQ(losses.find("nan"), std::string::npos) << losses;
    EXPECT_EQ(losses.find("inf"), std::string::npos) << losses;
    const auto evaluation = evaluate_checkpoint(dir_ / precision, 2, 7, false,
                                                [](const std::string& why) { FAIL() << why; });
    EXPECT_EQ(evaluation.result.episodes, 2) << precision;
  }
}

// IMPALA's and Ape-X's agents on cuda in one process (acting and learning in turn; under
// mpirun their learners take the GPU and their actors the CPU: bench/gpu/run.sh learners), their
// steps captured: a short run ends, and its checkpoint plays on the CPU.
TEST_F(CudaTrainingTest, ImpalaAndApexTrainOnCudaAsCudaGraphs) {
  for (const char* config : {"cartpole_impala.yaml", "cartpole_apex.yaml"}) {
    const auto result = run(config,
                            {"seed=1", "train.device=cuda", "train.total_steps=5000",
                             "train.cuda_graphs=on", "train.eval_episodes=2"},
                            config);
    ASSERT_FALSE(result.training.interrupted) << config;
    const auto evaluation = evaluate_checkpoint(dir_ / config, 2, 7, false,
                                                [](const std::string& why) { FAIL() << why; });
    EXPECT_EQ(evaluation.result.episodes, 2) << config;
  }
}

// The same DQN run on cpu (hand-written passes) and cuda (autograd): the same initial weights,
// exploration draws and replay samples, so the greedy actions agree (the episodes' returns are
// equal) and one gradient step moves the parameters alike. Within what bound: Adam's first step
// is lr * g / |g| per weight, so a gradient that is zero but for rounding can step either way:
// every weight is within 2.5 x lr of the CPU's, Adam's moments within rounding of the gradients.
// (After many steps such weights drift apart further: a run of 200 steps differed by up to 0.19,
// with the same returns.)
TEST_F(CudaTrainingTest, OneDqnUpdateOnCudaAgreesWithTheCpu) {
  constexpr double kLearningRate = 2.3e-3;  // configs/cartpole_dqn.yaml
  const std::vector<std::string> common = {
      "seed=3",           "train.total_steps=1001",      "dqn.learning_starts=1000",
      "dqn.train_freq=1", "dqn.gradient_steps=1",        "train.eval_interval=0",
      "checkpoint.replay_buffer=false"};
  auto cpu = common, cuda = common;
  cpu.push_back("train.device=cpu");
  cuda.push_back("train.device=cuda");
  run("cartpole_dqn.yaml", cpu, "cpu");
  run("cartpole_dqn.yaml", cuda, "cuda");
  EXPECT_EQ(rows_named(metrics_without_times(dir_ / "cpu"), "episodic_return"),
            rows_named(metrics_without_times(dir_ / "cuda"), "episodic_return"));
  // Parameters: one Adam step each way at most; moments: rounding of the gradients.
  expect_arrays_near(last_agent_arrays(dir_ / "cpu", "dqn", 2),
                     last_agent_arrays(dir_ / "cuda", "dqn", 2),
                     {"online parameters", "target parameters", "Adam's first moment",
                      "Adam's second moment"},
                     [&](std::size_t k, double scale) {
                       return k < 2 ? 2.5 * kLearningRate : 1e-3 * scale;
                     });
}

// One PPO update on cpu (hand-written passes) and cuda (autograd; the actions drawn on the host
// from the CPU generator, as on the CPU): one rollout of 8 envs x 32 steps, one epoch of one
// minibatch of all 256 rows. The same initial weights and draws give the same rollout (the
// episodes' returns are equal); the update's losses, computed on those weights before the
// step, agree up to rounding (1e-4, relative to values of 1 or more); the weights are within
// one Adam step (2.5 x lr, as for DQN) and the moments within rounding of the gradients.
TEST_F(CudaTrainingTest, OnePpoUpdateOnCudaAgreesWithTheCpu) {
  constexpr double kLearningRate = 1e-3;  // configs/cartpole_ppo.yaml
  const std::vector<std::string> common = {"seed=3", "train.total_steps=256", "ppo.n_epochs=1",
                                           "ppo.batch_size=256", "train.eval_interval=0"};
  auto cpu = common, cuda = common;
  cpu.push_back("train.device=cpu");
  cuda.push_back("train.device=cuda");
  run("cartpole_ppo.yaml", cpu, "cpu");
  run("cartpole_ppo.yaml", cuda, "cuda");
  const std::string cpu_metrics = metrics_without_times(dir_ / "cpu");
  const std::string cuda_metrics = metrics_without_times(dir_ / "cuda");
  EXPECT_EQ(rows_named(cpu_metrics, "episodic_return"), rows_named(cuda_metrics, "episodic_return"));
  const auto losses = [](const std::string& metrics) {
    std::istringstream in(rows_named(metrics, "losses/"));
    std::vector<std::pair<std::string, double>> values;
    std::string line;
    while (std::getline(in, line)) {
      const std::size_t comma = line.rfind(',');
      values.emplace_back(line.substr(0, comma), std::stod(line.substr(comma + 1)));
    }
    return values;
  };
  const auto cpu_losses = losses(cpu_metrics), cuda_losses = losses(cuda_metrics);
  ASSERT_EQ(cpu_losses.size(), cuda_losses.size());
  ASSERT_GE(cpu_losses.size(), 5u);
  for (std::size_t i = 0; i < cpu_losses.size(); ++i) {
    EXPECT_EQ(cpu_losses[i].first, cuda_losses[i].first);
    EXPECT_NEAR(cpu_losses[i].second, cuda_losses[i].second,
                1e-4 * std::max(1.0, std::abs(cpu_losses[i].second)))
        << cpu_losses[i].first;
  }
  expect_arrays_near(last_agent_arrays(dir_ / "cpu", "actor_critic", 1),
                     last_agent_arrays(dir_ / "cuda", "actor_critic", 1),
                     {"parameters", "Adam's first moment", "Adam's second moment"},
                     [&](std::size_t k, double scale) {
                       return k < 1 ? 2.5 * kLearningRate : 1e-3 * scale;
                     });
}

// PPO's gradient steps captured as CUDA graphs (train.cuda_graphs: on: an error where they
// cannot be) do on the device what the eager steps do, op for op: the same rollouts, and the
// same parameters and Adam moments at the end, bit for bit. 8 updates of 20 epochs x 4
// minibatches (rows drawn into the captured index); the clip range is scheduled, so each
// update captures its step anew and replays it 79 times.
TEST_F(CudaTrainingTest, PpoStepsAsCudaGraphsEndWhereTheEagerStepsEnd) {
  expect_graphs_end_where_eager_steps_end(
      "cartpole_ppo.yaml",
      {"seed=2", "train.device=cuda", "train.total_steps=2048", "train.eval_interval=0",
       "ppo.batch_size=64", "ppo.clip_range_schedule=linear"});
}

// DQN's (TdGradientSteps): Double DQN with prioritized replay, whose TD errors the host reads
// back after each replay.
TEST_F(CudaTrainingTest, DqnStepsAsCudaGraphsEndWhereTheEagerStepsEnd) {
  expect_graphs_end_where_eager_steps_end(
      "cartpole_dqn.yaml",
      {"seed=2", "train.device=cuda", "train.total_steps=3000", "train.eval_interval=0",
       "dqn.learning_starts=500", "dqn.double_q=true", "dqn.prioritized=true"});
}

// The return distributions' (the fractions and noise staged with the batch): Rainbow's pieces
// on C51, and IQN with noisy nets.
TEST_F(CudaTrainingTest, DistributionalStepsAsCudaGraphsEndWhereTheEagerStepsEnd) {
  for (const std::string kind : {"c51", "iqn"}) {
    SCOPED_TRACE(kind);
    expect_graphs_end_where_eager_steps_end(
        "cartpole_rainbowlite.yaml",
        {"seed=2", "train.device=cuda", "train.total_steps=3000", "train.eval_interval=0",
         "dqn.learning_starts=500", "dqn.distributional=" + kind, "dqn.noisy=true", "dqn.v_min=0",
         "dqn.v_max=100"});
    fs::remove_all(dir_ / "eager");
    fs::remove_all(dir_ / "graphed");
  }
}

// SAC's, TD3's and DDPG's (SacGradientSteps, Td3GradientSteps: TD3's critic-only and
// actor-and-targets steps are two graphs).
TEST_F(CudaTrainingTest, OffPolicyStepsAsCudaGraphsEndWhereTheEagerStepsEnd) {
  for (const std::string algo : {"sac", "td3", "ddpg"}) {
    SCOPED_TRACE(algo);
    expect_graphs_end_where_eager_steps_end(
        "pendulum_" + algo + ".yaml", {"seed=2", "train.device=cuda", "train.total_steps=1500",
                                       "train.eval_interval=0", algo + ".learning_starts=500"});
    fs::remove_all(dir_ / "eager");
    fs::remove_all(dir_ / "graphed");
  }
}

// The same SAC and TD3 runs on cpu (hand-written passes) and cuda (autograd, the noise drawn on
// the host as on the CPU): the same random warm-up episodes, and after one gradient step
// parameters within one Adam step (2.5 x lr, as for DQN) and the critics' Adam moments within
// rounding of the gradients.
TEST_F(CudaTrainingTest, OneOffPolicyUpdateOnCudaAgreesWithTheCpu) {
  constexpr double kLearningRate = 1e-3;  // both configs
  for (const std::string algo : {"sac", "td3"}) {
    const std::vector<std::string> common = {
        "seed=3", "train.total_steps=1001", algo + ".learning_starts=1000", "train.eval_interval=0",
        "checkpoint.replay_buffer=false"};
    auto cpu = common, cuda = common;
    cpu.push_back("train.device=cpu");
    cuda.push_back("train.device=cuda");
    const std::string config = "pendulum_" + algo + ".yaml";
    run(config, cpu, algo + "_cpu");
    run(config, cuda, algo + "_cuda");
    EXPECT_EQ(rows_named(metrics_without_times(dir_ / (algo + "_cpu")), "episodic_return"),
              rows_named(metrics_without_times(dir_ / (algo + "_cuda")), "episodic_return"))
        << algo;
    // TD3's state has the target actor after the target critics.
    const bool td3 = algo == "td3";
    std::vector<std::string> names{"parameters", "target critics"};
    if (td3) names.push_back("target actor");
    const std::size_t weights = names.size();
    names.insert(names.end(), {"critics' Adam first moment", "critics' Adam second moment"});
    expect_arrays_near(last_agent_arrays(dir_ / (algo + "_cpu"), algo, static_cast<int>(weights)),
                       last_agent_arrays(dir_ / (algo + "_cuda"), algo, static_cast<int>(weights)),
                       names, [&](std::size_t k, double scale) {
                         return k < weights ? 2.5 * kLearningRate : 1e-3 * scale;
                       });
  }
}

class CudaResumeTest : public CudaTrainingTest,
                       public ::testing::WithParamInterface<std::string> {};

// Stopped at a checkpoint and resumed on cuda, a cuda run ends bit for bit as the run in one
// go: parameters, optimizer state and the generators.
TEST_P(CudaResumeTest, ResumingOnCudaIsBitwise) {
  std::vector<std::string> overrides = {"train.device=cuda", "train.total_steps=3000",
                                        "checkpoint.interval=1000", "checkpoint.keep=100",
                                        "train.eval_interval=1000"};
  if (GetParam() == "cartpole_dqn.yaml") overrides.push_back("dqn.learning_starts=500");
  if (GetParam() == "pendulum_sac.yaml") overrides.push_back("train.eval_episodes=5");
  const auto whole = run(GetParam(), overrides, "whole");
  ASSERT_FALSE(whole.training.interrupted);
  const auto resumed = resume_from_first_checkpoint(dir_ / "whole", dir_ / "resumed", settings_);
  EXPECT_EQ(resumed.training.final_evaluation.mean_return,
            whole.training.final_evaluation.mean_return);
  const fs::path a = list_checkpoints(dir_ / "whole").back();
  const fs::path b = list_checkpoints(dir_ / "resumed").back();
  // (training.state differs: it holds the wall time trained so far.)
  for (const char* file : {"agent.state", "envs.state"}) {
    if (!fs::exists(a / file)) continue;
    EXPECT_TRUE(read_file(a / file) == read_file(b / file)) << file << " differs";
  }
  EXPECT_EQ(metrics_without_times(dir_ / "resumed"), metrics_without_times(dir_ / "whole"));
}

// A cuda run resumes on the CPU (train.device is a key a resume may change), and a CPU run on
// cuda, training on to the end.
TEST_P(CudaResumeTest, ResumesOnTheOtherDevice) {
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"cuda", "cpu"},
                                 std::pair<std::string, std::string>{"cpu", "cuda"}}) {
    const std::string name = from + "_then_" + to;
    std::vector<std::string> overrides = {"train.device=" + from, "train.total_steps=2000",
                                          "checkpoint.interval=1000", "checkpoint.keep=100"};
    if (GetParam() == "cartpole_dqn.yaml") overrides.push_back("dqn.learning_starts=500");
    const auto first = run(GetParam(), overrides, name);
    ASSERT_FALSE(first.training.interrupted);
    const auto checkpoints = list_checkpoints(dir_ / name);
    for (std::size_t i = 1; i < checkpoints.size(); ++i) fs::remove_all(checkpoints[i]);
    set_in_config(dir_ / name, "device", to);
    const auto resumed =
        resume_training(dir_ / name, settings_, [](const std::string& why) { FAIL() << why; });
    EXPECT_EQ(resumed.training.steps, 2000) << name;
    EXPECT_FALSE(resumed.training.interrupted) << name;
  }
}

INSTANTIATE_TEST_SUITE_P(Agents, CudaResumeTest,
                         ::testing::Values("cartpole_ppo.yaml", "cartpole_dqn.yaml",
                                           "pendulum_sac.yaml"),
                         [](const auto& info) {
                           const std::size_t at = info.param.find('_') + 1;
                           return info.param.substr(at, info.param.size() - at - 5);
                         });

}  // namespace
}  // namespace mnrl::experiments
