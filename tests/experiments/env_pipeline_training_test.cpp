// Training through the whole env pipeline: wrappers from the config, a threaded vector env,
// and evaluation envs that share the observation statistics.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "experiments/config/experiment_options.h"
#include "experiments/training/training.h"
#include "recording_metrics.h"

namespace mnrl::experiments {
namespace {

std::map<std::string, double> train(const std::vector<std::string>& extra) {
  std::vector<std::string> overrides = {
      "env.id=Acrobot-v1",
      "env.wrappers=[{type: frame_stack, num_frames: 2}, normalize_observation, normalize_reward]",
      "train.total_steps=2048", "train.eval_interval=0", "train.eval_episodes=2"};
  overrides.insert(overrides.end(), extra.begin(), extra.end());
  const auto options = load_experiment(MNRL_SOURCE_DIR "/configs/cartpole_ppo.yaml", overrides);
  RecordingMetrics metrics;
  const TrainingResult result = train(options, metrics);
  EXPECT_EQ(result.steps, 2048);
  return metrics.last;
}

TEST(EnvPipelineTrainingTest, WrappedThreadedTrainingMatchesSerialExactly) {
  const auto serial = train({"env.num_threads=1"});
  const auto threaded = train({"env.num_threads=2"});
  ASSERT_TRUE(serial.count("losses/value_loss"));
  EXPECT_TRUE(std::isfinite(serial.at("losses/value_loss")));
  EXPECT_EQ(serial.at("losses/value_loss"), threaded.at("losses/value_loss"));
  EXPECT_EQ(serial.at("losses/policy_loss"), threaded.at("losses/policy_loss"));
  // Evaluation reports Acrobot's own returns: -1 per step, 0 on a terminating step.
  EXPECT_EQ(serial.at("eval/mean_return"), threaded.at("eval/mean_return"));
  const double length = serial.at("eval/mean_length");
  EXPECT_GE(serial.at("eval/mean_return"), -length);
  EXPECT_LE(serial.at("eval/mean_return"), -length + 1.0);
}

TEST(EnvPipelineTrainingTest, AWrapperThatDoesNotFitTheEnvIsAConfigError) {
  try {
    load_experiment(MNRL_SOURCE_DIR "/configs/cartpole_ppo.yaml",
                    {"env.wrappers=[clip_action]"});
    FAIL() << "expected a ConfigError";
  } catch (const core::ConfigError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("--set env.wrappers=[clip_action]"), std::string::npos) << message;
    EXPECT_NE(message.find("env.wrappers: ClipAction(CartPole-v1): action space must be a Box"),
              std::string::npos)
        << message;
  }
}

}  // namespace
}  // namespace mnrl::experiments

namespace mnrl::experiments {
namespace {

std::string config_error(const std::vector<std::string>& overrides) {
  try {
    load_experiment(MNRL_SOURCE_DIR "/configs/cartpole_a3c.yaml", overrides);
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(AlgorithmOptionsTest, CombinationsThatCannotWorkAreConfigErrors) {
  EXPECT_NE(config_error({"a3c.optimizer=adam"})
                .find("--set a3c.optimizer=adam: a3c.optimizer = 'adam': A3C workers share one "
                      "RMSprop"),
            std::string::npos);
  EXPECT_NE(config_error({"env.wrappers=[normalize_observation]"})
                .find("env.wrappers: normalize_observation is not supported with algo: a3c"),
            std::string::npos);
  EXPECT_NE(
      config_error({"algo=a2d"})
          .find(
              "algo = 'a2d' is not one of: a2c, a3c, apex_dqn, apex_r2d2, ddpg, dqn, impala, ppo, "
              "r2d2, sac, td3"),
      std::string::npos);
  EXPECT_NE(config_error({"a3c.workers=0"}).find("a3c.workers = 0 is out of range"),
            std::string::npos);
  // MountainCarContinuous's actions are bounded; a clip_action wrapper makes them unbounded,
  // which squashing cannot map onto.
  EXPECT_NE(config_error({"algo=ppo", "env.id=MountainCarContinuous-v0",
                          "env.wrappers=[clip_action]", "network.squash_output=true"})
                .find("network.squash_output: the action space Box(1)"),
            std::string::npos);
  EXPECT_EQ(config_error({"algo=ppo", "env.id=MountainCarContinuous-v0",
                          "network.squash_output=true"}),
            "(no error)");
  // SAC, TD3 and DDPG map [-1, 1] onto the bounds, as squashing does.
  EXPECT_NE(config_error({"algo=td3", "env.id=MountainCarContinuous-v0",
                          "env.wrappers=[clip_action]"})
                .find("algo: td3 maps its actions onto the action space's bounds; "
                      "'MountainCarContinuous-v0' has an unbounded Box(1)"),
            std::string::npos);
  // gSDE explores continuous actions; CartPole's are Discrete.
  EXPECT_NE(config_error({"algo=a2c", "a2c.use_sde=true"})
                .find("a2c.use_sde: gSDE explores continuous actions; 'CartPole-v1' has "
                      "Discrete(2)"),
            std::string::npos);
  EXPECT_NE(config_error({"ppo.sde_sample_freq=-2"}).find("ppo.sde_sample_freq = -2"),
            std::string::npos);
  EXPECT_EQ(config_error({"algo=a3c", "env.id=Pendulum-v1", "a3c.use_sde=true",
                          "network.full_std=false", "network.use_expln=true"}),
            "(no error)");
  EXPECT_NE(config_error({"algo=dqn", "env.id=Pendulum-v1"})
                .find("algo: dqn needs Discrete actions; 'Pendulum-v1' has Box(1)"),
            std::string::npos);
  EXPECT_NE(config_error({"algo=dqn", "dqn.buffer_size=100", "dqn.batch_size=128"})
                .find("dqn.batch_size = 128 is larger than dqn.buffer_size = 100"),
            std::string::npos);
  EXPECT_NE(config_error({"algo=dqn", "dqn.per_alpha=1.5"})
                .find("dqn.per_alpha = 1.5 is out of range: must be in [0, 1]"),
            std::string::npos);
  // The return distributions' keys, in DQN's section and Ape-X's.
  EXPECT_NE(config_error({"algo=dqn", "dqn.distributional=c51", "dqn.v_min=5", "dqn.v_max=5"})
                .find("dqn.v_max = 5.000000 must be above dqn.v_min = 5.000000"),
            std::string::npos);
  EXPECT_NE(config_error({"algo=apex_dqn", "apex_dqn.distributional=iqn", "apex_dqn.risk=cvar",
                          "apex_dqn.risk_eta=1.5"})
                .find("apex_dqn.risk_eta = 1.500000: risk cvar takes the worst eta of the "
                      "returns, eta in (0, 1]"),
            std::string::npos);
  EXPECT_NE(config_error({"algo=dqn", "dqn.distributional=quantile"}).find("dqn.distributional"),
            std::string::npos);
  EXPECT_NE(config_error({"algo=dqn", "dqn.atoms=1"}).find("dqn.atoms = 1 is out of range"),
            std::string::npos);
}

}  // namespace
}  // namespace mnrl::experiments
