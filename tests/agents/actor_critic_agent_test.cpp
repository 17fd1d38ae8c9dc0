// Actor-critic agents with Box actions: what reaches the env, and the shared loss.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include <ATen/TensorOperators.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/tensor.h>
#include <torch/optim/adam.h>
#include <torch/utils.h>

#include "agents/a2c/a2c.h"
#include "agents/actor_critic_loss.h"

namespace mnrl::agents {
namespace {

constexpr std::int64_t kEnvs = 64;
constexpr std::int64_t kObservationSize = 3;

std::unique_ptr<A2c> make_a2c(bool squash, double log_std_init, const ActionBounds& bounds) {
  torch::manual_seed(3);
  nn::ActorCritic model(nn::ActorCriticOptions(kObservationSize, 2)
                            .hidden_sizes({8})
                            .continuous(true)
                            .squash(squash)
                            .log_std_init(log_std_init));
  auto parameters = std::make_shared<nn::FlatParameters>(*model);
  auto optimizer = std::make_unique<torch::optim::Adam>(
      std::vector<at::Tensor>{parameters->values()}, torch::optim::AdamOptions(1e-3));
  return std::make_unique<A2c>(A2cOptions{}, std::move(model), std::move(parameters),
                               std::move(optimizer),
                               replay::RolloutBuffer(2, kEnvs, kObservationSize, 2), bounds);
}

std::vector<float> observations() {
  std::vector<float> values(kEnvs * kObservationSize);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::sin(0.7f * i);
  return values;
}

// The greedy action before bounds: the policy head's mean for each row, [kEnvs, 2].
std::vector<float> means(A2c& agent, const std::vector<float>& obs) {
  torch::NoGradGuard no_grad;
  const at::Tensor x =
      at::from_blob(const_cast<float*>(obs.data()), {kEnvs, kObservationSize}, at::kFloat);
  const at::Tensor mean = agent.model()->forward(x).policy.contiguous();
  return {mean.data_ptr<float>(), mean.data_ptr<float>() + mean.numel()};
}

const ActionBounds kBounds{{-1.0f, 0.0f}, {1.0f, 4.0f}};

TEST(ActorCriticAgentTest, GaussianSamplesAreClippedIntoTheBoundsBeforeTheEnv) {
  auto agent = make_a2c(false, 2.0, kBounds);  // std ~7.4: most samples fall outside
  const auto obs = observations();
  std::vector<float> actions(kEnvs * 2);
  agent->act(obs.data(), {nullptr, actions.data()});
  int at_a_bound = 0;
  for (std::size_t i = 0; i < actions.size(); ++i) {
    const std::size_t j = i % 2;
    EXPECT_GE(actions[i], kBounds.low[j]);
    EXPECT_LE(actions[i], kBounds.high[j]);
    at_a_bound += actions[i] == kBounds.low[j] || actions[i] == kBounds.high[j];
  }
  EXPECT_GT(at_a_bound, kEnvs / 2);  // the clipping really happened

  agent->act_greedy(obs.data(), kEnvs, {nullptr, actions.data()});
  const auto mean = means(*agent, obs);
  for (std::size_t i = 0; i < actions.size(); ++i) {
    const std::size_t j = i % 2;
    EXPECT_EQ(actions[i], std::clamp(mean[i], kBounds.low[j], kBounds.high[j]));
  }
}

TEST(ActorCriticAgentTest, SquashedSamplesAreMappedOntoTheBounds) {
  auto agent = make_a2c(true, -30.0, kBounds);  // std ~1e-13: samples are tanh(mean)
  const auto obs = observations();
  std::vector<float> actions(kEnvs * 2);
  agent->act(obs.data(), {nullptr, actions.data()});
  const auto mean = means(*agent, obs);
  for (std::size_t i = 0; i < actions.size(); ++i) {
    const std::size_t j = i % 2;
    const float expected =
        kBounds.low[j] + 0.5f * (std::tanh(mean[i]) + 1.0f) * (kBounds.high[j] - kBounds.low[j]);
    EXPECT_NEAR(actions[i], expected, 1e-5f);
  }
}

// gSDE: the noise is a function of the state, fixed between draws. With sde_sample_freq 2 the
// same observations get the same actions at steps 0 and 1, new ones at step 2 (and again at 3),
// and fresh ones when the next rollout starts (the update in between has learning rate 0, so
// only the noise can change them).
TEST(ActorCriticAgentTest, GsdeNoiseIsFixedBetweenDrawsEverySdeSampleFreqSteps) {
  torch::manual_seed(4);
  constexpr std::int64_t kSteps = 4;
  nn::ActorCritic model(nn::ActorCriticOptions(kObservationSize, 2)
                            .hidden_sizes({8})
                            .continuous(true)
                            .use_sde(true)
                            .log_std_init(-1.0));
  auto parameters = std::make_shared<nn::FlatParameters>(*model);
  auto optimizer = std::make_unique<torch::optim::Adam>(
      std::vector<at::Tensor>{parameters->values()}, torch::optim::AdamOptions(1e-3));
  A2cOptions options;
  options.use_sde = true;
  options.sde_sample_freq = 2;
  options.learning_rate = 0.0;
  const ActionBounds wide{{-100.0f, -100.0f}, {100.0f, 100.0f}};  // no clipping
  A2c agent(options, std::move(model), std::move(parameters), std::move(optimizer),
            replay::RolloutBuffer(kSteps, kEnvs, kObservationSize, 2), wide);

  // Every env sees the same observation: only their exploration matrices tell them apart.
  std::vector<float> obs(kEnvs * kObservationSize);
  for (std::size_t i = 0; i < obs.size(); ++i) {
    obs[i] = 0.3f * static_cast<float>(i % kObservationSize) - 0.2f;
  }
  const std::vector<float> rewards(kEnvs, 0.0f);
  const std::vector<std::uint8_t> flags(kEnvs, 0);
  std::vector<std::vector<float>> actions;
  for (std::int64_t step = 0; step < kSteps + 1; ++step) {
    if (step == kSteps) agent.update({kSteps * kEnvs, 100 * kSteps * kEnvs});
    actions.emplace_back(kEnvs * 2);
    agent.act(obs.data(), {nullptr, actions.back().data()});
    if (step < kSteps) {
      agent.observe({obs.data(), rewards.data(), flags.data(), flags.data(), obs.data()});
    }
  }
  EXPECT_EQ(actions[0], actions[1]);
  EXPECT_NE(actions[1], actions[2]);
  EXPECT_EQ(actions[2], actions[3]);
  EXPECT_NE(actions[3], actions[4]);  // the next rollout draws anew
  int differing_envs = 0;  // one matrix per env: the same state, different noise
  for (std::int64_t i = 1; i < kEnvs; ++i) differing_envs += actions[0][2 * i] != actions[0][0];
  EXPECT_EQ(differing_envs, kEnvs - 1);
}

// A learner's view of a rollout: GAE with lambda 1 and V-trace, side by side.
class RolloutLearner : public ActorCriticAgent {
 public:
  using ActorCriticAgent::ActorCriticAgent;
  using ActorCriticAgent::finish_rollout;
  using ActorCriticAgent::finish_rollout_vtrace;
  Statistics update(const TrainingProgress&) override { return {}; }
};

// On its own rollout (pi = mu) a learner's V-trace targets and policy-gradient weights are the
// lambda = 1 returns and advantages; once its parameters move, the batch carries its new
// values, and the targets change with them.
TEST(ActorCriticAgentTest, VtraceOnTheAgentsOwnRolloutIsGaeWithLambdaOne) {
  torch::manual_seed(5);
  constexpr std::int64_t kSteps = 5;
  nn::ActorCritic model(
      nn::ActorCriticOptions(kObservationSize, 2).hidden_sizes({8}).continuous(true));
  auto parameters = std::make_shared<nn::FlatParameters>(*model);
  at::Tensor values = parameters->values();
  auto optimizer = std::make_unique<torch::optim::Adam>(std::vector<at::Tensor>{values},
                                                        torch::optim::AdamOptions(1e-3));
  RolloutLearner learner(std::move(model), std::move(parameters), std::move(optimizer),
                         replay::RolloutBuffer(kSteps, kEnvs, kObservationSize, 2), kBounds, 0);
  std::vector<float> obs = observations(), actions(kEnvs * 2), rewards(kEnvs);
  std::vector<std::uint8_t> terminated(kEnvs), truncated(kEnvs, 0);
  for (std::int64_t step = 0; step < kSteps; ++step) {
    learner.act(obs.data(), {nullptr, actions.data()});
    for (std::int64_t i = 0; i < kEnvs; ++i) {
      rewards[i] = std::cos(0.3f * static_cast<float>(i + step));
      terminated[i] = (i + step) % 7 == 0;
    }
    for (float& o : obs) o = std::sin(o + 0.5f);
    learner.observe({obs.data(), rewards.data(), terminated.data(), truncated.data(), obs.data()});
  }
  const RolloutBatch gae = learner.finish_rollout(0.9, 1.0);
  const at::Tensor gae_returns = gae.returns.clone(), gae_advantages = gae.advantages.clone();
  const at::Tensor actor_values = gae.values.clone();
  replay::RolloutBuffer::VtraceOptions options;
  options.gamma = 0.9f;
  const RolloutBatch vtrace = learner.finish_rollout_vtrace(options);
  EXPECT_TRUE(vtrace.returns.allclose(gae_returns, 1e-5, 1e-5));
  EXPECT_TRUE(vtrace.advantages.allclose(gae_advantages, 1e-5, 1e-5));
  EXPECT_TRUE(vtrace.values.allclose(actor_values, 1e-5, 1e-5));

  {
    torch::NoGradGuard no_grad;
    values.add_(0.05);  // the learner moves on from the policy that acted
  }
  const RolloutBatch later = learner.finish_rollout_vtrace(options);
  at::Tensor learner_values;
  {
    torch::NoGradGuard no_grad;
    learner_values = learner.model()->forward(later.observations).value;
  }
  EXPECT_TRUE(later.values.allclose(learner_values, 1e-6, 1e-6));
  EXPECT_FALSE(later.values.allclose(actor_values, 1e-3, 1e-3));
  EXPECT_FALSE(later.returns.allclose(gae_returns, 1e-3, 1e-3));
}

// A batch whose losses are computed by hand from the model's own outputs.
TEST(ActorCriticLossTest, PolicyGradientAndClippedSurrogateMatchTheirFormulas) {
  torch::manual_seed(5);
  nn::ActorCritic model(nn::ActorCriticOptions(2, 3).hidden_sizes({4}));
  const at::Tensor observations = at::tensor({0.5f, -1.0f, 2.0f, 0.25f, -0.5f, 1.5f}).view({3, 2});
  const at::Tensor actions = at::tensor(std::vector<std::int64_t>{0, 2, 1});
  const at::Tensor old_log_probs = at::tensor({-1.0f, -1.3f, -0.9f});
  const at::Tensor old_values = at::tensor({0.1f, -0.2f, 0.3f});
  const at::Tensor advantages = at::tensor({1.0f, -2.0f, 0.5f});
  const at::Tensor returns = at::tensor({1.5f, 0.0f, -1.0f});
  const RolloutBatch batch{observations, actions, old_log_probs, old_values, advantages, returns,
                           {},           {}};

  torch::NoGradGuard no_grad;
  const nn::PolicyValue output = model->forward(observations);
  const at::Tensor& values = output.value;
  const at::Tensor log_prob = model->distribution(output)->log_prob(actions);
  const double value_loss = (values - returns).pow(2).mean().item<double>();

  const ActorCriticLoss a2c = actor_critic_loss(*model, batch, {std::nullopt, std::nullopt, 0.5, 0.0, false});
  EXPECT_NEAR(a2c.policy_loss.item<double>(), -(advantages * log_prob).mean().item<double>(), 1e-6);
  EXPECT_NEAR(a2c.value_loss.item<double>(), value_loss, 1e-6);
  EXPECT_NEAR(a2c.total.item<double>(), a2c.policy_loss.item<double>() + 0.5 * value_loss, 1e-6);

  const double clip = 0.1;
  const ActorCriticLoss ppo = actor_critic_loss(*model, batch, {clip, std::nullopt, 0.5, 0.0, false});
  const at::Tensor ratio = (log_prob - old_log_probs).exp();
  double expected = 0;
  for (int i = 0; i < 3; ++i) {
    const double r = ratio[i].item<double>();
    const double a = advantages[i].item<double>();
    expected -= std::min(a * r, a * std::clamp(r, 1 - clip, 1 + clip)) / 3;
  }
  EXPECT_NEAR(ppo.policy_loss.item<double>(), expected, 1e-6);
  EXPECT_TRUE(at::allclose(ppo.log_ratio, log_prob - old_log_probs));
}

}  // namespace
}  // namespace mnrl::agents
