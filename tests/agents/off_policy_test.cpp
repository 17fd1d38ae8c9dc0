// The pieces SAC, TD3 and DDPG are built from: the flat buffer's layout, the critics'
// targets and actor gradients, the exploration noise, and the entropy coefficient's keys.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <ATen/TensorOperators.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/min.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/zeros.h>
#include <torch/utils.h>

#include "agents/off_policy/action_noise.h"
#include "agents/off_policy/critics.h"
#include "agents/off_policy/off_policy_networks.h"
#include "agents/sac/sac_options.h"
#include "nn/flat_parameters.h"
#include "nn/memory_views.h"

namespace mnrl::agents {
namespace {

constexpr std::int64_t kObservation = 3, kAction = 2, kBatch = 6;

std::shared_ptr<OffPolicyNetworks> networks(int critics, std::optional<double> log_alpha) {
  std::vector<nn::ContinuousQNetwork> q;
  for (int i = 0; i < critics; ++i) {
    q.emplace_back(nn::ContinuousQNetworkOptions(kObservation, kAction).hidden_sizes({8, 8}));
  }
  return std::make_shared<OffPolicyNetworks>(
      q, nn::ContinuousActor(nn::ContinuousActorOptions(kObservation, kAction).hidden_sizes({8}).stochastic(true)),
      log_alpha);
}

// Where a module's parameters start in the flat buffer.
std::int64_t offset_of(const torch::nn::Module& module, const nn::FlatParameters& flat) {
  return module.parameters().front().data_ptr<float>() - flat.values().data_ptr<float>();
}

TEST(OffPolicyNetworksTest, RangesAreWhereTheFlatBufferPutsEachNetwork) {
  for (const bool with_alpha : {false, true}) {
    auto nets = networks(2, with_alpha ? std::optional<double>(-0.5) : std::nullopt);
    nn::FlatParameters flat(*nets);
    const auto critics = nets->critics_range();
    const auto actor = nets->actor_range();
    const auto alpha = nets->log_alpha_range();
    EXPECT_EQ(offset_of(*nets->critics()[0], flat), critics.offset);
    EXPECT_EQ(offset_of(*nets->critics()[1], flat), critics.offset + critics.count / 2);
    EXPECT_EQ(offset_of(*nets->actor(), flat), actor.offset);
    EXPECT_EQ(actor.offset, critics.offset + critics.count);
    EXPECT_EQ(alpha.offset + alpha.count, flat.numel());
    EXPECT_EQ(alpha.count, with_alpha ? 1 : 0);
    if (with_alpha) {
      EXPECT_EQ(flat.values()[alpha.offset].item<float>(), -0.5f);
    }
  }
}

TEST(TargetCriticsTest, TargetsStartAsCopiesAndFollowByPolyakAveraging) {
  torch::manual_seed(1);
  auto nets = networks(2, std::nullopt);
  nn::FlatParameters flat(*nets);
  const auto range = nets->critics_range();
  const at::Tensor values = flat.values().narrow(0, range.offset, range.count);
  TargetCritics targets(nets->critics(), values);
  EXPECT_TRUE(targets.values().equal(values));
  EXPECT_FALSE(targets.values().is_same(values));

  const at::Tensor before = targets.values().clone();
  {
    torch::NoGradGuard no_grad;
    values.add_(1.0);
  }
  targets.update(0.25);
  EXPECT_TRUE(at::allclose(targets.values(), before + 0.25, 1e-6, 1e-6));
  targets.update(1.0);
  EXPECT_TRUE(targets.values().equal(values));
}

TEST(CriticsTest, TargetIsTheSmallerCriticAndTheActorFollowsTheSmallerOne) {
  torch::manual_seed(2);
  auto nets = networks(2, std::nullopt);
  nn::FlatParameters flat(*nets);
  const auto range = nets->critics_range();
  const TargetCritics targets(nets->critics(), range.of(flat.values()));
  Critics critics(nets->critics(), targets, kBatch);
  const at::Tensor observations = at::randn({kBatch, kObservation});
  const at::Tensor actions = at::randn({kBatch, kAction}).set_requires_grad(true);

  nn::ContinuousQNetwork first = nets->critics()[0], second = nets->critics()[1];
  const at::Tensor q1 = first->forward(observations, actions).view({-1});
  const at::Tensor q2 = second->forward(observations, actions).view({-1});
  const at::Tensor smaller = at::min(q1, q2);
  const at::Tensor detached = actions.detach().contiguous();
  const at::Tensor target =
      nn::view_floats(critics.min_target_q(observations.data_ptr<float>(), detached.data_ptr<float>()),
                      kBatch)
          .clone();
  EXPECT_TRUE(at::allclose(target, smaller.detach(), 1e-5, 1e-5));

  (smaller.sum() * -0.5).backward({}, /*retain_graph=*/true);
  std::vector<float> gradients(kBatch * kAction);
  const double mean_q = critics.action_gradient(observations.data_ptr<float>(),
                                                detached.data_ptr<float>(), true, -0.5f,
                                                gradients.data());
  EXPECT_NEAR(mean_q, smaller.mean().item<double>(), 1e-5);
  EXPECT_TRUE(at::allclose(nn::view_floats(gradients.data(), kBatch, kAction), actions.grad(),
                           1e-4, 1e-5));

  // The first critic alone (TD3's actor objective).
  actions.grad().zero_();
  (q1.sum() * 2.0).backward();
  critics.action_gradient(observations.data_ptr<float>(), detached.data_ptr<float>(), false, 2.0f,
                          gradients.data());
  EXPECT_TRUE(at::allclose(nn::view_floats(gradients.data(), kBatch, kAction), actions.grad(),
                           1e-4, 1e-5));
}

TEST(CriticsTest, TdLossGradientsAreTheScaledSumOfMeanSquaredErrors) {
  torch::manual_seed(3);
  auto nets = networks(2, std::nullopt);
  nn::FlatParameters flat(*nets);
  const auto range = nets->critics_range();
  const TargetCritics target_critics(nets->critics(), range.of(flat.values()));
  Critics critics(nets->critics(), target_critics, kBatch);
  const at::Tensor observations = at::randn({kBatch, kObservation});
  const at::Tensor actions = at::randn({kBatch, kAction});
  const at::Tensor targets = at::randn({kBatch});
  at::Tensor loss = at::zeros({});
  std::vector<double> expected;
  for (nn::ContinuousQNetwork critic : nets->critics()) {
    const at::Tensor error = critic->forward(observations, actions).view({-1}) - targets;
    const at::Tensor mse = (error * error).mean();
    expected.push_back(mse.item<double>());
    loss = loss + 0.5 * mse;
  }
  loss.backward();
  const at::Tensor autograd = flat.gradients().narrow(0, range.offset, range.count).clone();
  flat.gradients().fill_(7.0f);

  std::vector<double> losses, mean_q;
  critics.backward_td_loss(observations.data_ptr<float>(), actions.data_ptr<float>(),
                           targets.data_ptr<float>(), 0.5f, losses, mean_q);
  ASSERT_EQ(losses.size(), 2u);
  EXPECT_NEAR(losses[0], expected[0], 1e-5);
  EXPECT_NEAR(losses[1], expected[1], 1e-5);
  EXPECT_TRUE(at::allclose(flat.gradients().narrow(0, range.offset, range.count), autograd, 1e-4,
                           1e-5));
  // The actor's gradients are not the critics' loss's to write.
  EXPECT_EQ(flat.gradients()[range.count].item<float>(), 7.0f);
}

TEST(ActionNoiseTest, NoneLeavesActionsAndNormalStaysInBounds) {
  core::Rng rng(4);
  std::vector<float> actions = {0.3f, -0.99f, 0.99f, 0.0f};
  ActionNoiseOptions options;
  ActionNoise none(options, 2, 2);
  none.perturb(actions.data(), 2, rng);
  EXPECT_EQ(actions, (std::vector<float>{0.3f, -0.99f, 0.99f, 0.0f}));

  options.action_noise = "normal";
  options.action_noise_std = 0.5;
  ActionNoise normal(options, 2, 2);
  double moved = 0.0;
  for (int i = 0; i < 100; ++i) {
    std::vector<float> step = actions;
    normal.perturb(step.data(), 2, rng);
    for (std::size_t k = 0; k < step.size(); ++k) {
      ASSERT_GE(step[k], -1.0f);
      ASSERT_LE(step[k], 1.0f);
      moved += std::abs(step[k] - actions[k]);
    }
  }
  EXPECT_GT(moved / 400.0, 0.2);
}

TEST(ActionNoiseTest, OrnsteinUhlenbeckIsCorrelatedAndRestartsAtAnEpisodesEnd) {
  ActionNoiseOptions options;
  options.action_noise = "ornstein_uhlenbeck";
  options.action_noise_std = 0.3;
  ActionNoise noise(options, 2, 1);
  core::Rng rng(5);
  // Consecutive values of one process are strongly correlated (theta dt = 0.0015 per step).
  std::vector<float> previous(2, 0.0f), values(2, 0.0f);
  double product = 0.0, squares = 0.0;
  for (int i = 0; i < 2000; ++i) {
    values.assign(2, 0.0f);
    noise.perturb(values.data(), 2, rng);
    product += values[0] * previous[0];
    squares += previous[0] * previous[0];
    previous = values;
  }
  EXPECT_GT(product / squares, 0.95);

  core::StateWriter saved;
  noise.save_state(saved);
  noise.reset(0);
  core::StateReader in(saved.bytes(), "noise");
  ActionNoise restored(options, 2, 1);
  restored.load_state(in);
  core::Rng a(6), b(6);
  std::vector<float> after_reset(2, 0.0f), continued(2, 0.0f);
  noise.perturb(after_reset.data(), 2, a);
  restored.perturb(continued.data(), 2, b);
  EXPECT_EQ(after_reset[1], continued[1]);  // env 1 went on
  // Env 0 restarted from 0: one step from there is sqrt(dt) * 0.3 * N(0, 1).
  EXPECT_LT(std::abs(after_reset[0]), 0.15f);
  EXPECT_NE(after_reset[0], continued[0]);
}

TEST(SacOptionsTest, EntropyCoefficientAndTargetEntropyParse) {
  EXPECT_TRUE(parse_entropy_coefficient("auto")->learned);
  EXPECT_EQ(parse_entropy_coefficient("auto")->initial, 1.0);
  EXPECT_EQ(parse_entropy_coefficient("auto_0.1")->initial, 0.1);
  EXPECT_TRUE(parse_entropy_coefficient("auto_0.1")->learned);
  EXPECT_FALSE(parse_entropy_coefficient("0.2")->learned);
  EXPECT_EQ(parse_entropy_coefficient("0.2")->initial, 0.2);
  for (const char* bad : {"", "auto_", "auto_-1", "-0.1", "0", "fast", "nan", "inf", "0.1x"}) {
    EXPECT_FALSE(parse_entropy_coefficient(bad)) << bad;
  }
  EXPECT_EQ(*parse_target_entropy("auto", 3), -3.0);
  EXPECT_EQ(*parse_target_entropy("-1.5", 3), -1.5);
  EXPECT_FALSE(parse_target_entropy("low", 3));
}

}  // namespace
}  // namespace mnrl::agents
