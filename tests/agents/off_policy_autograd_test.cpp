// SAC's, TD3's and DDPG's gradient steps through autograd (what they run on a GPU), here on the
// CPU, against the hand-written steps: two agents built alike, fed the same observations and
// rewards, must keep the same parameters, targets and statistics to float rounding, and
// their checkpoints must load into each other.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <ATen/TensorOperators.h>
#include <ATen/ops/abs.h>
#include <torch/utils.h>

#include "agents/off_policy/continuous_off_policy_agent.h"
#include "agents/off_policy/off_policy_networks.h"
#include "agents/sac/sac.h"
#include "agents/td3/td3.h"
#include "core/rng.h"
#include "nn/flat_parameters.h"

namespace mnrl::agents {
namespace {

constexpr std::int64_t kAutogradObservation = 3, kAutogradAction = 2, kAutogradEnvs = 2;

struct BuiltAgent {
  std::shared_ptr<nn::FlatParameters> parameters;
  std::unique_ptr<ContinuousOffPolicyAgent> agent;
};

std::unique_ptr<replay::Replay> autograd_test_replay(const OffPolicyOptions& options) {
  replay::ReplayOptions replay;
  replay.capacity = options.buffer_size;
  replay.observation_size = kAutogradObservation;
  replay.action_size = kAutogradAction;
  replay.num_envs = kAutogradEnvs;
  replay.n_step = options.n_step;
  replay.gamma = static_cast<float>(options.gamma);
  return std::make_unique<replay::Replay>(replay);
}

std::shared_ptr<OffPolicyNetworks> autograd_test_networks(int critics, bool stochastic,
                                                          std::optional<double> log_alpha) {
  torch::manual_seed(11);  // both agents start from the same weights
  std::vector<nn::ContinuousQNetwork> q;
  for (int i = 0; i < critics; ++i) {
    q.emplace_back(nn::ContinuousQNetworkOptions(kAutogradObservation, kAutogradAction)
                       .hidden_sizes({16, 16}));
  }
  return std::make_shared<OffPolicyNetworks>(
      q,
      nn::ContinuousActor(nn::ContinuousActorOptions(kAutogradObservation, kAutogradAction)
                              .hidden_sizes({16, 16})
                              .stochastic(stochastic)),
      log_alpha);
}

OffPolicyOptions autograd_test_off_policy() {
  OffPolicyOptions options(3e-3);
  options.buffer_size = 500;
  options.learning_starts = 20;
  options.batch_size = 16;
  options.gradient_steps = 2;
  options.n_step = 2;
  options.tau = 0.05;
  return options;
}

const ActionBounds kAutogradBounds{{-2.0f, -1.0f}, {2.0f, 1.0f}};

BuiltAgent make_sac_agent(const SacOptions& sac, GradientPath path) {
  const bool learned = sac.ent_coef == "auto";
  auto networks = autograd_test_networks(2, true, learned ? std::optional<double>(0.0) : std::nullopt);
  auto parameters = std::make_shared<nn::FlatParameters>(*networks);
  auto agent = std::make_unique<Sac>(sac, kAutogradBounds, networks, parameters,
                                     autograd_test_replay(sac.off_policy), 5, path);
  return {parameters, std::move(agent)};
}

BuiltAgent make_td3_agent(const Td3Options& td3, int critics, GradientPath path) {
  auto networks = autograd_test_networks(critics, false, std::nullopt);
  auto parameters = std::make_shared<nn::FlatParameters>(*networks);
  auto agent = std::make_unique<Td3>(critics == 2 ? "td3" : "ddpg", td3, kAutogradBounds, networks,
                                     parameters, autograd_test_replay(td3.off_policy), 5, path);
  return {parameters, std::move(agent)};
}

// The statistics of every update that reported them, by name, in update order.
using StatisticsLog = std::map<std::string, std::vector<double>>;

// `steps` vector steps of both agents on the same made-up env: observations and rewards from
// one generator, an episode ending every 7 steps (terminated) or 11 (truncated).
void run_side_by_side(ContinuousOffPolicyAgent& a, ContinuousOffPolicyAgent& b, int steps,
                      StatisticsLog& log_a, StatisticsLog& log_b) {
  core::Rng env_rng(3);
  const auto draw = [&](std::size_t count) {
    std::vector<float> values(count);
    for (float& v : values) v = static_cast<float>(env_rng.normal());
    return values;
  };
  std::vector<float> observations = draw(kAutogradEnvs * kAutogradObservation);
  std::vector<float> actions_a(kAutogradEnvs * kAutogradAction),
      actions_b(kAutogradEnvs * kAutogradAction);
  for (int t = 1; t <= steps; ++t) {
    a.act(core::ConstTypedPtr(observations.data()), ActionsOut{nullptr, actions_a.data()});
    b.act(core::ConstTypedPtr(observations.data()), ActionsOut{nullptr, actions_b.data()});
    const std::vector<float> next = draw(kAutogradEnvs * kAutogradObservation);
    std::vector<float> rewards = draw(kAutogradEnvs);
    for (std::size_t i = 0; i < rewards.size(); ++i) rewards[i] += 0.5f * actions_a[2 * i];
    std::vector<std::uint8_t> terminated(kAutogradEnvs, t % 7 == 0 ? 1 : 0);
    std::vector<std::uint8_t> truncated(kAutogradEnvs, t % 11 == 0 ? 1 : 0);
    const StepOutcome outcome{core::ConstTypedPtr(next.data()), rewards.data(), terminated.data(),
                              truncated.data(), core::ConstTypedPtr(next.data())};
    a.observe(outcome);
    b.observe(outcome);
    observations = next;
    ASSERT_EQ(a.update_ready(), b.update_ready());
    if (!a.update_ready()) continue;
    const TrainingProgress progress{t * kAutogradEnvs, steps * kAutogradEnvs};
    for (const auto& [name, value] : a.update(progress)) log_a[name].push_back(value);
    for (const auto& [name, value] : b.update(progress)) log_b[name].push_back(value);
  }
}

// The largest |x - y| / (1 + |y|) between two tensors.
double largest_difference(const at::Tensor& x, const at::Tensor& y) {
  return ((x - y).abs() / (y.abs() + 1.0)).max().item<double>();
}

void expect_same_training(BuiltAgent& by_hand, BuiltAgent& autograd) {
  const at::Tensor initial = by_hand.parameters->values().clone();
  StatisticsLog hand_log, autograd_log;
  run_side_by_side(*by_hand.agent, *autograd.agent, 120, hand_log, autograd_log);
  const at::Tensor& hand = by_hand.parameters->values();
  // The updates moved the parameters far more than the paths differ.
  EXPECT_GT(largest_difference(hand, initial), 1e-2);
  EXPECT_LT(largest_difference(autograd.parameters->values(), hand), 2e-4);

  ASSERT_FALSE(hand_log.empty());
  EXPECT_EQ(hand_log.size(), autograd_log.size());
  for (const auto& [name, values] : hand_log) {
    ASSERT_EQ(autograd_log[name].size(), values.size()) << name;
    for (std::size_t i = 0; i < values.size(); ++i) {
      EXPECT_NEAR(autograd_log[name][i], values[i], 1e-3 * (1.0 + std::abs(values[i]))) << name;
    }
  }

  // The two paths keep one state: each loads the other's checkpoint and acts alike.
  core::StateWriter saved;
  autograd.agent->save_state(saved);
  core::StateReader in(saved.bytes(), "autograd agent");
  by_hand.agent->load_state(in);
  EXPECT_TRUE(by_hand.parameters->values().equal(autograd.parameters->values()));
  const std::vector<float> observation{0.3f, -0.2f, 0.1f};
  float hand_action[kAutogradAction], autograd_action[kAutogradAction];
  by_hand.agent->act_greedy(core::ConstTypedPtr(observation.data()), 1,
                            ActionsOut{nullptr, hand_action});
  autograd.agent->act_greedy(core::ConstTypedPtr(observation.data()), 1,
                             ActionsOut{nullptr, autograd_action});
  EXPECT_FLOAT_EQ(hand_action[0], autograd_action[0]);
  EXPECT_FLOAT_EQ(hand_action[1], autograd_action[1]);
}

TEST(OffPolicyAutogradTest, SacStepsEqualTheHandWrittenOnes) {
  for (const std::string ent_coef : {"auto", "0.2"}) {
    SCOPED_TRACE("ent_coef " + ent_coef);
    SacOptions sac;
    sac.off_policy = autograd_test_off_policy();
    sac.ent_coef = ent_coef;
    sac.target_update_interval = 2;
    BuiltAgent by_hand = make_sac_agent(sac, GradientPath::by_hand);
    BuiltAgent autograd = make_sac_agent(sac, GradientPath::autograd);
    expect_same_training(by_hand, autograd);
  }
}

TEST(OffPolicyAutogradTest, Td3AndDdpgStepsEqualTheHandWrittenOnes) {
  Td3Options td3;
  td3.off_policy = autograd_test_off_policy();
  td3.noise.action_noise = "normal";
  {
    SCOPED_TRACE("td3");
    BuiltAgent by_hand = make_td3_agent(td3, 2, GradientPath::by_hand);
    BuiltAgent autograd = make_td3_agent(td3, 2, GradientPath::autograd);
    expect_same_training(by_hand, autograd);
  }
  {
    SCOPED_TRACE("ddpg");
    DdpgOptions ddpg;
    ddpg.off_policy = autograd_test_off_policy();
    BuiltAgent by_hand = make_td3_agent(ddpg.as_td3(), 1, GradientPath::by_hand);
    BuiltAgent autograd = make_td3_agent(ddpg.as_td3(), 1, GradientPath::autograd);
    expect_same_training(by_hand, autograd);
  }
}

TEST(OffPolicyAutogradTest, AutogradStepsRefuseGsde) {
  SacOptions sac;
  sac.off_policy = autograd_test_off_policy();
  sac.use_sde = true;
  auto networks = autograd_test_networks(2, true, std::nullopt);
  auto parameters = std::make_shared<nn::FlatParameters>(*networks);
  EXPECT_THROW(Sac(sac, kAutogradBounds, networks, parameters, autograd_test_replay(sac.off_policy),
                   5, GradientPath::autograd),
               std::logic_error);
}

}  // namespace
}  // namespace mnrl::agents
