// Actor-critic agents with memory (network.recurrent) on a real partially observed env: the
// update (PPO's minibatches, IMPALA's learner) replays sequences that reproduce what acting
// computed, and evaluation memory restarts with each episode.
#include <gtest/gtest.h>
#include <torch/optim/adam.h>
#include <torch/utils.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "agents/a2c/a2c.h"
#include "agents/impala/impala.h"
#include "agents/ppo/ppo.h"
#include "envs/env_options.h"

namespace mnrl::agents {
namespace {

constexpr std::int64_t kNoVelEnvs = 4;
constexpr std::int64_t kRolloutSteps = 64;

nn::ActorCritic make_recurrent_model(std::int64_t observation_size, std::int64_t actions,
                                     nn::RecurrentCell cell, bool continuous = false) {
  torch::manual_seed(7);
  return nn::ActorCritic(nn::ActorCriticOptions(observation_size, actions)
                             .hidden_sizes({16})
                             .continuous(continuous)
                             .recurrent(nn::RecurrentCoreOptions(0, 8).cell(cell)));
}

std::unique_ptr<Ppo> make_recurrent_ppo(nn::RecurrentCell cell, std::int64_t batch_size,
                                        std::int64_t seq_len) {
  PpoOptions options;
  options.n_steps = kRolloutSteps;
  options.batch_size = batch_size;
  options.seq_len = seq_len;
  options.n_epochs = 2;
  // Steps too small to move the policy: every replayed log-probability must equal the one
  // acting computed.
  options.learning_rate = 1e-12;
  nn::ActorCritic model = make_recurrent_model(2, 2, cell);  // CartPoleNoVel: position and angle
  auto parameters = std::make_shared<nn::FlatParameters>(*model);
  auto optimizer = std::make_unique<torch::optim::Adam>(
      std::vector<at::Tensor>{parameters->values()}, torch::optim::AdamOptions(1e-12));
  return std::make_unique<Ppo>(
      options, std::move(model), std::move(parameters), std::move(optimizer),
      replay::RolloutBuffer(kRolloutSteps, kNoVelEnvs, 2, 1), ActionBounds{});
}

std::unique_ptr<Impala> make_recurrent_impala(std::int64_t envs) {
  ImpalaOptions options;
  options.unroll_length = kRolloutSteps;
  nn::ActorCritic model = make_recurrent_model(2, 2, nn::RecurrentCell::lstm);
  auto parameters = std::make_shared<nn::FlatParameters>(*model);
  auto optimizer = std::make_unique<torch::optim::Adam>(
      std::vector<at::Tensor>{parameters->values()}, torch::optim::AdamOptions(1e-3));
  return std::make_unique<Impala>(options, std::move(model), std::move(parameters),
                                  std::move(optimizer),
                                  replay::RolloutBuffer(kRolloutSteps, envs, 2, 1), ActionBounds{});
}

// The training envs of CartPoleNoVel-v1 an agent acts in (random-ish policies end episodes
// every ~20 steps, so sequences start mid-episode and episodes start mid-sequence).
class NoVelEnvs {
 public:
  NoVelEnvs() {
    envs::EnvOptions env;
    env.id = "CartPoleNoVel-v1";
    env.num_envs = kNoVelEnvs;
    vec_ = envs::make_vector_env(env, 5);
    vec_->reset();
  }

  // Acts until the agent's rollout is full; returns how many episodes ended.
  int fill_rollout(Agent& agent) {
    std::vector<std::int64_t> actions(kNoVelEnvs);
    int episodes_ended = 0;
    while (!agent.update_ready()) {
      agent.act(vec_->observations(), {actions.data(), nullptr});
      vec_->step({actions.data(), nullptr, actions.size()});
      agent.observe({vec_->observations(), vec_->rewards(), vec_->terminated(), vec_->truncated(),
                     vec_->final_observations()});
      for (std::int64_t i = 0; i < kNoVelEnvs; ++i) episodes_ended += vec_->terminated()[i];
    }
    return episodes_ended;
  }

 private:
  std::unique_ptr<envs::VectorEnv> vec_;
};

std::map<std::string, double> update(Agent& agent) {
  std::map<std::string, double> statistics;
  for (const auto& [name, value] : agent.update({0, 1000})) statistics[name] = value;
  return statistics;
}

// One rollout, then the update's statistics; counts the episodes that ended.
std::map<std::string, double> rollout_and_update(Agent& agent, int& episodes_ended) {
  NoVelEnvs envs;
  episodes_ended = envs.fill_rollout(agent);
  return update(agent);
}

struct ReplayCase {
  nn::RecurrentCell cell;
  std::int64_t batch_size;
  std::int64_t seq_len;
};

class RecurrentReplayTest : public ::testing::TestWithParam<ReplayCase> {};

TEST_P(RecurrentReplayTest, SequenceMinibatchesReproduceWhatActingComputed) {
  const ReplayCase c = GetParam();
  auto agent = make_recurrent_ppo(c.cell, c.batch_size, c.seq_len);
  int episodes_ended = 0;
  const auto statistics = rollout_and_update(*agent, episodes_ended);
  EXPECT_GE(episodes_ended, kNoVelEnvs);  // episodes start inside the sequences
  // log pi(a|s) recomputed from the stored memories through each sequence equals the acting
  // one: the ratios are 1 up to rounding (KL ~1e-9; memory carried across episode starts makes
  // it ~5e-6 here).
  EXPECT_LT(std::abs(statistics.at("losses/old_approx_kl")), 1e-7);
  EXPECT_LT(std::abs(statistics.at("losses/approx_kl")), 1e-7);
  EXPECT_EQ(statistics.at("losses/clipfrac"), 0.0);
}

INSTANTIATE_TEST_SUITE_P(
    Minibatches, RecurrentReplayTest,
    ::testing::Values(ReplayCase{nn::RecurrentCell::lstm, kRolloutSteps* kNoVelEnvs,
                                 0},                                  // whole rollout
                      ReplayCase{nn::RecurrentCell::lstm, 32, 8},     // 4 sequences of 8 steps
                      ReplayCase{nn::RecurrentCell::gru, 64, 16},     // 4 of 16
                      ReplayCase{nn::RecurrentCell::lstm, 96, 16}));  // a last, smaller one

// An IMPALA learner replays each trajectory from the memory its actor sent with it: its update
// equals the one the actor makes on its own rollout (which replays the memory it kept), here on
// a second rollout, whose sequences start from memories carried over from the first.
TEST(RecurrentImpalaTest, TheLearnerReplaysTheMemoryItsActorSent) {
  // Two rollouts of an actor learning from its own (each construction reseeds LibTorch's
  // generator, so both actors draw the same actions).
  auto alone = make_recurrent_impala(kNoVelEnvs);
  NoVelEnvs alone_envs;
  alone_envs.fill_rollout(*alone);
  std::vector<float> trajectory(static_cast<std::size_t>(alone->trajectory_floats(kNoVelEnvs)));
  alone->pack_trajectory(trajectory.data());
  EXPECT_GE(alone_envs.fill_rollout(*alone), kNoVelEnvs);
  const auto expected = update(*alone);

  auto actor = make_recurrent_impala(kNoVelEnvs);
  auto learner = make_recurrent_impala(2 * kNoVelEnvs);  // a batch of 2 trajectories
  NoVelEnvs envs;
  envs.fill_rollout(*actor);
  actor->pack_trajectory(trajectory.data());
  envs.fill_rollout(*actor);
  actor->pack_trajectory(trajectory.data());
  // The same trajectory twice: the batch's means are the trajectory's, up to summation order.
  learner->unpack_trajectory(trajectory.data(), kNoVelEnvs, 0);
  learner->unpack_trajectory(trajectory.data(), kNoVelEnvs, kNoVelEnvs);
  const auto statistics = update(*learner);
  for (const auto& [name, value] : expected) {
    EXPECT_NEAR(statistics.at(name), value, 1e-6 * (1.0 + std::abs(value))) << name;
  }
  EXPECT_LT(std::abs(statistics.at("losses/approx_kl")), 1e-9);  // the same policy
}

// Evaluation keeps its own memory per row, restarted where the evaluation's episode ended.
TEST(RecurrentEvaluationTest, EvaluationMemoryRestartsWhereAnEpisodeEnded) {
  constexpr std::int64_t kRows = 2;
  nn::ActorCritic model = make_recurrent_model(3, 1, nn::RecurrentCell::lstm, /*continuous=*/true);
  auto parameters = std::make_shared<nn::FlatParameters>(*model);
  auto optimizer = std::make_unique<torch::optim::Adam>(
      std::vector<at::Tensor>{parameters->values()}, torch::optim::AdamOptions(1e-3));
  A2c agent(A2cOptions{}, std::move(model), std::move(parameters), std::move(optimizer),
            replay::RolloutBuffer(5, 1, 3, 1), ActionBounds{{-100.0f}, {100.0f}});
  const std::vector<float> first{0.3f, -1.0f, 2.0f, 1.5f, 0.2f, -0.7f};
  const std::vector<float> next{-0.4f, 0.9f, 0.1f, -0.4f, 0.9f, 0.1f};  // the same in both rows
  std::vector<float> fresh(kRows), continued(kRows), restarted(kRows);

  agent.reset_evaluation_memory();
  agent.act_greedy(next.data(), kRows, {nullptr, fresh.data()});  // from zero memories
  EXPECT_EQ(fresh[0], fresh[1]);

  agent.reset_evaluation_memory();
  agent.act_greedy(first.data(), kRows, {nullptr, continued.data()});
  agent.act_greedy(next.data(), kRows, {nullptr, continued.data()});
  EXPECT_NE(continued[0], fresh[0]);  // the first step is remembered
  EXPECT_NE(continued[1], fresh[1]);

  agent.reset_evaluation_memory();
  agent.act_greedy(first.data(), kRows, {nullptr, restarted.data()});
  const std::uint8_t terminated[kRows] = {0, 0}, truncated[kRows] = {1, 0};
  agent.evaluation_episodes_ended(terminated, truncated, kRows);
  agent.act_greedy(next.data(), kRows, {nullptr, restarted.data()});
  EXPECT_FLOAT_EQ(restarted[0], fresh[0]);      // row 0's episode began again
  EXPECT_FLOAT_EQ(restarted[1], continued[1]);  // row 1's goes on
}

}  // namespace
}  // namespace mnrl::agents
