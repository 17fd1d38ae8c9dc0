// Runs the real `mnrl` program as a user would and checks exit codes, messages and files.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "cli_test_fixture.h"

namespace {
using namespace mnrl_cli_test;

const std::string kConfig = std::string(MNRL_SOURCE_DIR) + "/configs/cartpole_ppo.yaml";

// "" when the texts are equal, else the first line where they differ, numbered from 1.
std::string first_difference(const std::string& actual, const std::string& expected) {
  std::istringstream actual_lines(actual);
  std::istringstream expected_lines(expected);
  std::string actual_line;
  std::string expected_line;
  for (int line = 1;; ++line) {
    const bool more_actual = static_cast<bool>(std::getline(actual_lines, actual_line));
    const bool more_expected = static_cast<bool>(std::getline(expected_lines, expected_line));
    if (!more_actual && !more_expected) return "";
    if (more_actual != more_expected || actual_line != expected_line) {
      return "line " + std::to_string(line) + ": generated '" +
             (more_actual ? actual_line : "<end>") + "', file '" +
             (more_expected ? expected_line : "<end>") + "'";
    }
  }
}

TEST_F(CliTest, VersionAndHelpExitZero) {
  const auto version = run("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_NE(version.output.find("mnrl 0."), std::string::npos) << version.output;
  const auto help = run("train --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("--set"), std::string::npos) << help.output;
}

// Training differs between OpenBLAS kernels (float rounding), so --version names the one in use
// (Sandybridge: an x86-64 kernel that every OpenBLAS with DYNAMIC_ARCH on x86-64 has).
TEST_F(CliTest, VersionNamesTheBlasKernelInUse) {
  ::setenv("OPENBLAS_CORETYPE", "Sandybridge", 1);
  const auto version = run("--version");
  ::unsetenv("OPENBLAS_CORETYPE");
  EXPECT_EQ(version.exit_code, 0);
  if (version.output.find("BLAS: not OpenBLAS") != std::string::npos ||
      version.output.find("DYNAMIC_ARCH") == std::string::npos) {
    GTEST_SKIP() << "libblas.so.3 is not an OpenBLAS that picks its kernel at run time: "
                 << version.output;
  }
  EXPECT_NE(version.output.find("BLAS: OpenBLAS"), std::string::npos) << version.output;
  EXPECT_NE(version.output.find(", kernel Sandybridge"), std::string::npos) << version.output;
}

TEST_F(CliTest, MistypedCommandSuggestsTheRightOne) {
  const auto r = run("trian " + kConfig);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("did you mean 'train'"), std::string::npos) << r.output;
}

TEST_F(CliTest, UnknownOptionAndMissingConfigExitTwo) {
  const auto unknown = run("train " + kConfig + " --sed 3");
  EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("--sed"), std::string::npos) << unknown.output;
  EXPECT_EQ(run("train").exit_code, 2);
  EXPECT_EQ(run("").exit_code, 2);
}

TEST_F(CliTest, MissingConfigFileIsAConfigError) {
  const auto r = run("train does_not_exist.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("does_not_exist.yaml"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::is_empty(dir_));
}

// What needs a GPU (CUDA graphs on, tf32, bf16) under train.device: auto that finds none (none
// visible: CUDA_VISIBLE_DEVICES empty, on any machine): exit 2 naming the key, before anything
// is written.
TEST_F(CliTest, GpuSettingsWhereAutoFindsNoGpuExitTwoWritingNothing) {
  const fs::path config = write_config("algo: dqn\ntrain:\n  device: auto\n");
  for (const std::string setting :
       {"train.cuda_graphs=on", "train.precision=bf16", "train.precision=tf32"}) {
    const auto r =
        run_shell("CUDA_VISIBLE_DEVICES= '" MNRL_BINARY "' train x.yaml --set " + setting);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    const std::string key = setting.substr(0, setting.find('='));
    EXPECT_NE(r.output.find(key + ": " + setting.substr(key.size() + 1) +
                            ", but train.device: auto chose the CPU"),
              std::string::npos)
        << r.output;
    EXPECT_TRUE(wrote_nothing_but(config)) << setting;
  }
}

// Every config error: exit 2, message names the key and the line, nothing written.
struct ConfigErrorCase {
  const char* name;
  const char* yaml;
  const char* extra_arguments;
  std::vector<const char*> expected_fragments;
};

void PrintTo(const ConfigErrorCase& c, std::ostream* out) { *out << c.name; }

class ConfigErrorTest : public CliTest, public ::testing::WithParamInterface<ConfigErrorCase> {};

TEST_P(ConfigErrorTest, ExitsTwoNamingKeyAndLineAndWritesNothing) {
  const auto& c = GetParam();
  const fs::path config = write_config(c.yaml);
  const auto r = run("train x.yaml " + std::string(c.extra_arguments));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  for (const char* fragment : c.expected_fragments) {
    EXPECT_NE(r.output.find(fragment), std::string::npos)
        << "missing '" << fragment << "' in: " << r.output;
  }
  EXPECT_TRUE(wrote_nothing_but(config)) << "a failed config must not create a run directory";
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ConfigErrorTest,
    ::testing::Values(
        ConfigErrorCase{"UnknownKey",
                        "env:\n  id: CartPole-v1\nppo:\n  gama: 0.9\n",
                        "",
                        {"ppo.gama", "x.yaml:4", "did you mean 'gamma'"}},
        ConfigErrorCase{
            "WrongType", "ppo:\n  n_epochs: many\n", "", {"ppo.n_epochs", "x.yaml:2", "many"}},
        ConfigErrorCase{
            "OutOfRange", "seed: 1\nppo:\n  gamma: 1.5\n", "", {"ppo.gamma", "x.yaml:3", "[0, 1]"}},
        ConfigErrorCase{"NotAChoice",
                        "network:\n  activation: tahn\n",
                        "",
                        {"network.activation", "x.yaml:2", "did you mean 'tanh'"}},
        ConfigErrorCase{"MalformedYaml",
                        "env:\n  id: [CartPole-v1\nppo: {}\n",
                        "",
                        {"x.yaml:", "malformed YAML"}},
        ConfigErrorCase{"UnknownEnv",
                        "env:\n  id: CartPol-v1\n",
                        "",
                        {"env.id", "x.yaml:2", "did you mean 'CartPole-v1'"}},
        ConfigErrorCase{"BatchLargerThanRollout",
                        "env:\n  num_envs: 2\nppo:\n  n_steps: 4\n  batch_size: 64\n",
                        "",
                        {"ppo.batch_size", "x.yaml:5"}},
        ConfigErrorCase{"DqnPerAlphaOutOfRange",
                        "algo: dqn\ndqn:\n  prioritized: true\n  per_alpha: 1.5\n",
                        "",
                        {"dqn.per_alpha", "x.yaml:4", "[0, 1]"}},
        ConfigErrorCase{"DqnBatchLargerThanBuffer",
                        "algo: dqn\ndqn:\n  buffer_size: 100\n  batch_size: 128\n",
                        "",
                        {"dqn.batch_size", "x.yaml:4", "larger than dqn.buffer_size = 100"}},
        ConfigErrorCase{"SacOnDiscreteActions",
                        "algo: sac\nenv:\n  id: CartPole-v1\n",
                        "",
                        {"x.yaml:1", "algo: sac needs Box (continuous) actions", "Discrete(2)"}},
        ConfigErrorCase{"SacEntropyCoefficient",
                        "algo: sac\nenv:\n  id: Pendulum-v1\nsac:\n  ent_coef: fast\n",
                        "",
                        {"sac.ent_coef", "x.yaml:5", "auto_<initial value>"}},
        ConfigErrorCase{"Td3NoiseKind",
                        "algo: td3\nenv:\n  id: Pendulum-v1\ntd3:\n  action_noise: gaussian\n",
                        "",
                        {"td3.action_noise", "x.yaml:5", "ornstein_uhlenbeck"}},
        ConfigErrorCase{"DdpgBatchLargerThanBuffer",
                        "algo: ddpg\nenv:\n  id: Pendulum-v1\nddpg:\n  buffer_size: 100\n"
                        "  batch_size: 128\n",
                        "",
                        {"ddpg.batch_size", "x.yaml:6", "larger than ddpg.buffer_size = 100"}},
        ConfigErrorCase{
            "ConvEncoderOnFlatObservations",
            "env:\n  id: CartPole-v1\nnetwork:\n  encoder: minatar_cnn\n",
            "",
            {"network.encoder", "x.yaml:4",
             "network.encoder: minatar_cnn needs images, a Box of shape [C, H, W]", "Box(4)"}},
        ConfigErrorCase{"ConvKernelLargerThanTheImage",
                        "env:\n  id: MinAtar/Breakout-v1\nnetwork:\n  encoder: nature_cnn\n",
                        "",
                        {"network.encoder", "x.yaml:4", "kernel 4 does not fit a 1x1 input"}},
        ConfigErrorCase{"CnnKeysWithoutAnEncoder",
                        "env:\n  id: MinAtar/Breakout-v1\nnetwork:\n  cnn_channels: [8]\n",
                        "",
                        {"network.cnn_channels", "x.yaml:4", "set network.encoder"}},
        ConfigErrorCase{"SacWithAConvEncoder",
                        "algo: sac\nenv:\n  id: Pendulum-v1\nnetwork:\n  encoder: nature_cnn\n",
                        "",
                        {"network.encoder", "x.yaml:5",
                         "works with a2c, a3c, apex_dqn, apex_r2d2, dqn, impala, ppo and r2d2"}},
        ConfigErrorCase{"RecurrentNetworkForDqn",
                        "algo: dqn\nnetwork:\n  recurrent:\n    type: lstm\n",
                        "",
                        {"network.recurrent.type", "x.yaml:4", "dqn takes no recurrent network",
                         "lstm works with a2c, a3c, apex_r2d2, impala, ppo and r2d2"}},
        ConfigErrorCase{"R2d2WithoutMemory",
                        "algo: r2d2\nenv:\n  id: CartPoleNoVel-v1\n",
                        "",
                        {"network.recurrent.type", "r2d2 learns a recurrent Q-network"}},
        ConfigErrorCase{
            "R2d2PeriodLongerThanASequence",
            "algo: r2d2\nnetwork:\n  recurrent:\n    type: gru\nr2d2:\n"
            "  burn_in: 4\n  seq_len: 8\n  period: 13\n",
            "",
            {"r2d2.period", "x.yaml:8", "longer than a sequence (burn_in + seq_len = 12)"}},
        ConfigErrorCase{"ApexR2d2WithoutMemory",
                        "algo: apex_r2d2\nenv:\n  id: CartPoleNoVel-v1\n",
                        "",
                        {"network.recurrent.type", "apex_r2d2 learns a recurrent Q-network"}},
        ConfigErrorCase{
            "ApexR2d2BatchLargerThanItsReplay",
            "algo: apex_r2d2\nnetwork:\n  recurrent:\n    type: lstm\napex_r2d2:\n"
            "  buffer_size: 10\n  batch_size: 11\n",
            "",
            {"apex_r2d2.batch_size", "x.yaml:7", "larger than apex_r2d2.buffer_size = 10"}},
        ConfigErrorCase{
            "RecurrentSequencesNotDividingTheRollout",
            "env:\n  num_envs: 4\nnetwork:\n  recurrent:\n    type: gru\nppo:\n"
            "  n_steps: 32\n  batch_size: 64\n  seq_len: 12\n",
            "",
            {"ppo.seq_len", "x.yaml:9", "ppo.seq_len = 12 does not divide ppo.n_steps = 32"}},
        ConfigErrorCase{
            "RecurrentMinibatchNotWholeSequences",
            "env:\n  num_envs: 4\nnetwork:\n  recurrent:\n    type: lstm\nppo:\n"
            "  n_steps: 32\n  batch_size: 48\n",
            "",
            {"ppo.batch_size", "x.yaml:8", "not a whole number of sequences of ppo.seq_len = 32"}},
        ConfigErrorCase{"SharedTrunkOverSeparateMemories",
                        "network:\n  shared_trunk: true\n  recurrent:\n    type: lstm\n",
                        "",
                        {"network.recurrent.shared", "needs network.recurrent.shared: true"}},
        ConfigErrorCase{"NotADevice",
                        "train:\n  device: gpu\n",
                        "",
                        {"train.device", "x.yaml:2", "'gpu' is not a device", "cuda:N"}},
        ConfigErrorCase{"A3cOnCuda",
                        "algo: a3c\ntrain:\n  device: cuda\n",
                        "",
                        {"train.device", "x.yaml:3", "a3c trains on the CPU only",
                         "works with a2c, apex_dqn, ddpg, dqn, impala, ppo, sac and td3"}},
        ConfigErrorCase{"GsdeOnCuda",
                        "env:\n  id: Pendulum-v1\nppo:\n  use_sde: true\ntrain:\n"
                        "  device: cuda:0\n",
                        "",
                        {"train.device", "x.yaml:6", "gSDE exploration trains on the CPU only"}},
        ConfigErrorCase{
            "CudaGraphsOnTheCpu",
            "train:\n  device: cpu\n  cuda_graphs: on\n",
            "",
            {"train.cuda_graphs", "x.yaml:3", "captures GPU work", "train.device is cpu"}},
        ConfigErrorCase{"CudaGraphsOnForA3c",
                        "algo: a3c\ntrain:\n  device: auto\n  cuda_graphs: on\n",
                        "",
                        {"train.cuda_graphs", "x.yaml:4", "a3c's gradient steps are not captured",
                         "work with a2c, apex_dqn, ddpg, dqn, impala, ppo, sac and td3"}},
        ConfigErrorCase{"PrecisionOnTheCpu",
                        "train:\n  precision: bf16\n",
                        "",
                        {"train.precision", "x.yaml:2", "computes on a GPU's tensor cores",
                         "train.device is cpu"}},
        ConfigErrorCase{"PrecisionForA3c",
                        "algo: a3c\ntrain:\n  device: auto\n  precision: tf32\n",
                        "",
                        {"train.precision", "x.yaml:4", "a3c trains on the CPU only",
                         "tf32 works with a2c, apex_dqn, ddpg, dqn, impala, ppo, sac and td3"}},
        ConfigErrorCase{"PrecisionForSacWithGsde",
                        "algo: sac\nenv:\n  id: Pendulum-v1\nsac:\n  use_sde: true\ntrain:\n"
                        "  device: auto\n  precision: bf16\n",
                        "",
                        {"train.precision", "x.yaml:8", "sac with gSDE trains on the CPU only"}},
        ConfigErrorCase{"PrecisionNotAChoice",
                        "train:\n  precision: fp16\n",
                        "",
                        {"train.precision", "x.yaml:2", "bf16"}},
        ConfigErrorCase{"CudaGraphsNotAChoice",
                        "train:\n  cuda_graphs: yes\n",
                        "",
                        {"train.cuda_graphs", "x.yaml:2", "auto", "off"}},
        ConfigErrorCase{"NormalizingUint8Observations",
                        "env:\n  id: MinAtar/Breakout-v1\n  wrappers:\n"
                        "    - normalize_observation\n",
                        "",
                        {"env.wrappers", "x.yaml:4", "normalize_observation needs float32"}},
        ConfigErrorCase{"PipelineStagesForSac",
                        "algo: sac\nenv:\n  id: Pendulum-v1\ndistributed:\n  pipeline_stages: 2\n",
                        "",
                        {"distributed.pipeline_stages", "x.yaml:5",
                         "sac does not cut its network into stages; a2c, dqn and ppo do"}},
        ConfigErrorCase{"PipelineStagesForIqn",
                        "algo: dqn\ndqn:\n  distributional: iqn\ndistributed:\n"
                        "  pipeline_stages: 2\n",
                        "",
                        {"distributed.pipeline_stages", "x.yaml:5",
                         "dqn.distributional: iqn's quantile fractions enter mid-network"}},
        ConfigErrorCase{"PipelineStagesWithMemory",
                        "network:\n  recurrent:\n    type: lstm\ndistributed:\n"
                        "  pipeline_stages: 2\n",
                        "",
                        {"distributed.pipeline_stages", "x.yaml:5",
                         "network.recurrent's memory do not cut into stages"}},
        ConfigErrorCase{"ParameterServersForPpo",
                        "algo: ppo\ndistributed:\n  parameter_servers: 2\n",
                        "",
                        {"distributed.parameter_servers", "x.yaml:3",
                         "ppo has no parameter server (algorithms with one: a3c)"}},
        ConfigErrorCase{"PipelineStagesOffTheCpu",
                        "train:\n  device: auto\ndistributed:\n  pipeline_stages: 2\n",
                        "",
                        {"distributed.pipeline_stages", "x.yaml:4",
                         "train.device is auto; pipeline stages run on the CPU"}},
        ConfigErrorCase{"MoreStagesThanBlocks",
                        "network:\n  hidden_sizes: [64]\ndistributed:\n  pipeline_stages: 3\n",
                        "",
                        {"distributed.pipeline_stages", "x.yaml:4",
                         "the network has 2 blocks to cut (1 trunk layer(s), the heads)"}},
        ConfigErrorCase{"StageBoundariesOfTheWrongCount",
                        "distributed:\n  pipeline_stages: 2\n  stage_boundaries: [1, 2]\n",
                        "",
                        {"distributed.stage_boundaries", "x.yaml:3", "2 boundaries for 2 stages"}},
        ConfigErrorCase{"StageBoundaryPastTheNetwork",
                        "distributed:\n  pipeline_stages: 2\n  stage_boundaries: [3]\n",
                        "",
                        {"distributed.stage_boundaries", "x.yaml:3",
                         "3 must be above 0 and below the network's 3 blocks"}},
        ConfigErrorCase{"MoreMicroBatchesThanRows",
                        "ppo:\n  batch_size: 8\ndistributed:\n  pipeline_stages: 2\n"
                        "  micro_batches: 16\n",
                        "",
                        {"distributed.micro_batches", "x.yaml:5",
                         "16 micro-batches of a gradient step of 8 rows (ppo.batch_size)"}},
        ConfigErrorCase{"BadSetValue",
                        "seed: 1\n",
                        "--set ppo.n_epochs=0",
                        {"ppo.n_epochs", "--set ppo.n_epochs=0"}},
        ConfigErrorCase{"UnknownSetKey",
                        "seed: 1\n",
                        "--set ppo.clip_rnage=0.1",
                        {"ppo.clip_rnage", "did you mean 'clip_range'"}},
        ConfigErrorCase{"MalformedSet", "seed: 1\n", "--set ppo.gamma", {"--set", "ppo.gamma"}}),
    [](const auto& info) { return std::string(info.param.name); });

TEST_F(CliTest, EnvsListsCartPoleWithItsSpaces) {
  const auto r = run("envs");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("CartPole-v1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Discrete(2)"), std::string::npos) << r.output;
}

TEST_F(CliTest, CheckEnvPassesCartPole) {
  const auto r = run("check-env CartPole-v1 --steps 300 --seed 7");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* line :
       {"PASS  spec is valid\n", "PASS  observations inside the space\n",
        "PASS  episodes respect the time limit\n", "PASS  same seed, same trajectory\n",
        "PASS  a saved state replays\n", "PASS  invalid actions are refused\n"}) {
    EXPECT_NE(r.output.find(line), std::string::npos)
        << "missing '" << line << "' in: " << r.output;
  }
  EXPECT_EQ(r.output.find("FAIL"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("CartPole-v1: 11 of 11 checks passed."), std::string::npos) << r.output;
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(CliTest, CheckEnvUnknownIdSuggestsAndExitsTwo) {
  const auto r = run("check-env CartPol-v1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown environment 'CartPol-v1'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("did you mean 'CartPole-v1'"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("PASS"), std::string::npos) << r.output;
}

TEST_F(CliTest, CheckEnvRejectsBadArguments) {
  for (const char* arguments :
       {"CartPole-v1 --steps 0", "CartPole-v1 --steps -5", "CartPole-v1 --steps=-5",
        "CartPole-v1 --steps many", "CartPole-v1 --seed -1", ""}) {
    const auto r = run(std::string("check-env ") + arguments);
    EXPECT_EQ(r.exit_code, 2) << arguments << ": " << r.output;
    EXPECT_NE(r.output.find("mnrl check-env"), std::string::npos) << arguments << ": " << r.output;
    EXPECT_EQ(r.output.find("PASS"), std::string::npos) << arguments << ": " << r.output;
  }
  const auto zero = run("check-env CartPole-v1 --steps 0");
  EXPECT_NE(zero.output.find("--steps: must be at least 1, got 0"), std::string::npos)
      << zero.output;
}

// A short real training run: the run directory holds what it should.
TEST_F(CliTest, SmokeTrainWritesRunDirectory) {
  const auto r = run("train " + kConfig +
                     " --set train.total_steps=512 --set train.eval_episodes=2 --seed 5"
                     " --run-dir out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("final evaluation: mean return"), std::string::npos) << r.output;
  const fs::path out = dir_ / "out";
  const std::string config = read_file(out / "config.yaml");
  EXPECT_NE(config.find("seed: 5"), std::string::npos) << config;
  EXPECT_NE(config.find("total_steps: 512"), std::string::npos) << config;
  const std::string run_info = read_file(out / "run_info.yaml");
  EXPECT_NE(run_info.find("--seed 5"), std::string::npos) << run_info;
  EXPECT_NE(run_info.find("\nblas: "), std::string::npos) << run_info;  // the rounding it ran with
  const std::string metrics = read_file(out / "metrics.csv");
  EXPECT_EQ(metrics.rfind("step,wall_time,name,value\n", 0), 0u) << metrics.substr(0, 200);
  for (const char* name : {"charts/episodic_return", "charts/SPS", "losses/value_loss",
                           "losses/policy_loss", "eval/mean_return"}) {
    EXPECT_NE(metrics.find(name), std::string::npos) << name;
  }
  EXPECT_NE(read_file(out / "summary.yaml").find("steps: 512"), std::string::npos);

  // The resolved config is itself a valid config that reproduces the run's settings.
  const auto again = run("train out/config.yaml --set train.total_steps=256 --run-dir again");
  EXPECT_EQ(again.exit_code, 0) << again.output;

  // A run directory that is not empty is refused before anything is written.
  const auto reuse = run("train " + kConfig + " --set train.total_steps=256 --run-dir out");
  EXPECT_EQ(reuse.exit_code, 2);
  EXPECT_NE(reuse.output.find("not empty"), std::string::npos) << reuse.output;
}

// `mnrl bench` times the learner's updates alone and rates their products against this core's
// sgemm (A3C's: one worker's).
TEST_F(CliTest, BenchRatesTheLearnersProductsAgainstSgemm) {
  const auto r =
      run("bench cartpole_dqn --env-steps 1000 --learner-seconds 0.2"
          " --set train.total_steps=3000 --set train.eval_episodes=1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::smatch rate, products;
  ASSERT_TRUE(std::regex_search(r.output, rate,
                                std::regex(R"(learner alone, dqn updates +([0-9]+) steps/s)")))
      << r.output;
  EXPECT_GT(std::stod(rate[1]), 0.0);
  ASSERT_TRUE(std::regex_search(
      r.output, products,
      std::regex(R"(learner's products +([0-9.]+) GFLOP/s  \(([0-9]+)% of this core's sgemm)")))
      << r.output;
  EXPECT_GT(std::stod(products[1]), 0.0);
  EXPECT_GT(std::stoi(products[2]), 0);
  EXPECT_NE(r.output.find("dqn end to end"), std::string::npos) << r.output;

  const auto a3c =
      run("bench cartpole_a3c --env-steps 1000 --set train.total_steps=500"
          " --set train.eval_episodes=1");
  ASSERT_EQ(a3c.exit_code, 0) << a3c.output;
  EXPECT_TRUE(
      std::regex_search(a3c.output, std::regex(R"(learner alone, a3c updates +[0-9]+ steps/s)")))
      << a3c.output;
}

// The key reference comes from the lists that read the YAML, and docs/configuration.md is it.
// `mnrl export` writes the best policy as a TorchScript archive (a zip: "PK"); what is not a
// checkpoint, or an output that is not a regular file, is refused with exit 2.
TEST_F(CliTest, ExportWritesATorchScriptModuleAndRefusesBadTargets) {
  const auto trained =
      run("train " + kConfig +
          " --set train.total_steps=512 --set train.eval_episodes=2 --run-dir out");
  ASSERT_EQ(trained.exit_code, 0) << trained.output;
  const auto exported = run("export out/checkpoints/best -o policy.pt");
  ASSERT_EQ(exported.exit_code, 0) << exported.output;
  EXPECT_NE(exported.output.find("wrote policy.pt: a TorchScript module"), std::string::npos)
      << exported.output;
  EXPECT_EQ(read_file(dir_ / "policy.pt").rfind("PK", 0), 0u);

  const auto not_a_run = run("export . -o other.pt");
  EXPECT_EQ(not_a_run.exit_code, 2) << not_a_run.output;
  EXPECT_NE(not_a_run.output.find("mnrl export: '.' is neither a run directory"), std::string::npos)
      << not_a_run.output;
  EXPECT_FALSE(fs::exists(dir_ / "other.pt"));
  fs::create_directory(dir_ / "a_directory");
  const auto into_directory = run("export out -o a_directory");
  EXPECT_EQ(into_directory.exit_code, 2) << into_directory.output;
  EXPECT_TRUE(fs::is_directory(dir_ / "a_directory"));
}

TEST_F(CliTest, ConfigKeysDescribeEveryKeyAndTheReferenceDocIsCurrent) {
  const auto ppo = run("config keys ppo");
  EXPECT_EQ(ppo.exit_code, 0) << ppo.output;
  for (const char* expected : {"ppo.n_steps", "integer", "2048", ">= 1", "steps per env"}) {
    EXPECT_NE(ppo.output.find(expected), std::string::npos) << expected << "\n" << ppo.output;
  }
  EXPECT_EQ(ppo.output.find("dqn."), std::string::npos) << ppo.output;
  const auto wrappers = run("config keys env.wrappers");
  EXPECT_NE(wrappers.output.find("env.wrappers[].num_frames"), std::string::npos)
      << wrappers.output;

  const auto unknown = run("config keys ppp");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.output.find("did you mean 'ppo'"), std::string::npos) << unknown.output;

  const auto markdown = run("config keys --markdown");
  ASSERT_EQ(markdown.exit_code, 0) << markdown.output;
  std::ifstream doc(MNRL_SOURCE_DIR "/docs/configuration.md");
  std::stringstream text;
  text << doc.rdbuf();
  EXPECT_EQ(first_difference(markdown.output, text.str()), "")
      << "docs/configuration.md is stale: regenerate it with "
         "`mnrl config keys --markdown > docs/configuration.md`";
}

}  // namespace
