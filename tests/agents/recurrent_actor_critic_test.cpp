// Actor-critic agents with memory (network.recurrent) on a real partially observed env: the
// update replays sequences that reproduce what acting computed, and evaluation memory restarts
// with each episode.
#include <gtest/gtest.h>
#include <torch/optim/adam.h>
#include <torch/utils.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "agents/a2c/a2c.h"
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

// One rollout of CartPoleNoVel-v1 (random-ish policies end episodes every ~20 steps, so
// sequences start mid-episode and episodes start mid-sequence); returns the update's statistics
// and counts the episodes that ended.
std::map<std::string, double> rollout_and_update(Agent& agent, int& episodes_ended) {
  envs::EnvOptions env;
  env.id = "CartPoleNoVel-v1";
  env.num_envs = kNoVelEnvs;
  auto vec = envs::make_vector_env(env, 5);
  vec->reset();
  std::vector<std::int64_t> actions(kNoVelEnvs);
  episodes_ended = 0;
  while (!agent.update_ready()) {
    agent.act(vec->observations(), {actions.data(), nullptr});
    vec->step({actions.data(), nullptr, actions.size()});
    agent.observe({vec->observations(), vec->rewards(), vec->terminated(), vec->truncated(),
                   vec->final_observations()});
    for (std::int64_t i = 0; i < kNoVelEnvs; ++i) episodes_ended += vec->terminated()[i];
  }
  std::map<std::string, double> statistics;
  for (const auto& [name, value] : agent.update({0, 1000})) statistics[name] = value;
  return statistics;
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
