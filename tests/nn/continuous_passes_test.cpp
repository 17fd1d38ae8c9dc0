// The hand-written passes of the off-policy continuous-control networks against autograd.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <vector>

#include <ATen/TensorOperators.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/clamp.h>
#include <ATen/ops/exp.h>
#include <ATen/ops/log1p.h>
#include <ATen/ops/where.h>
#include <ATen/ops/log.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/tanh.h>
#include <torch/utils.h>

#include "nn/continuous_actor_pass.h"
#include "nn/continuous_q_pass.h"
#include "nn/flat_parameters.h"
#include "nn/fused_adam.h"
#include "nn/memory_views.h"

namespace mnrl::nn {
namespace {

constexpr std::int64_t kObservation = 5, kAction = 3, kBatch = 7;

float max_difference(const at::Tensor& a, const at::Tensor& b) {
  return (a - b).abs().max().item<float>();
}

// (activation, hidden sizes)
using PassShape = std::tuple<Activation, std::vector<std::int64_t>>;

class ContinuousQPassTest : public ::testing::TestWithParam<PassShape> {};

TEST_P(ContinuousQPassTest, MatchesAutogradValuesParameterAndActionGradients) {
  const auto& [activation, hidden] = GetParam();
  torch::manual_seed(5);
  ContinuousQNetwork critic(ContinuousQNetworkOptions(kObservation, kAction)
                                .hidden_sizes(hidden)
                                .activation(activation));
  FlatParameters parameters(*critic);
  const at::Tensor observations = at::randn({kBatch, kObservation});
  const at::Tensor actions = at::randn({kBatch, kAction}).set_requires_grad(true);
  const at::Tensor q_gradients = at::randn({kBatch});

  const at::Tensor q = critic->forward(observations, actions).view({-1});
  (q * q_gradients).sum().backward();
  const at::Tensor autograd_parameter_gradients = parameters.gradients().clone();

  ContinuousQPass pass(critic, kBatch);
  const at::Tensor detached_actions = actions.detach().contiguous();
  const at::Tensor pass_q =
      view_floats(pass.forward(observations.data_ptr<float>(), detached_actions.data_ptr<float>()),
                  kBatch)
          .clone();
  EXPECT_TRUE(at::allclose(pass_q, q.detach(), 1e-5, 1e-5)) << max_difference(pass_q, q.detach());

  // The action gradient leaves the parameters' gradients alone.
  parameters.gradients().fill_(123.0f);
  std::vector<float> action_gradients(kBatch * kAction);
  pass.action_gradient(q_gradients.data_ptr<float>(), action_gradients.data());
  EXPECT_EQ(parameters.gradients().min().item<float>(), 123.0f);
  EXPECT_EQ(parameters.gradients().max().item<float>(), 123.0f);
  const at::Tensor pass_action_gradients = view_floats(action_gradients.data(), kBatch, kAction);
  EXPECT_TRUE(at::allclose(pass_action_gradients, actions.grad(), 1e-4, 1e-5))
      << max_difference(pass_action_gradients, actions.grad());

  // backward() overwrites every parameter gradient.
  pass.forward(observations.data_ptr<float>(), detached_actions.data_ptr<float>());
  pass.backward(q_gradients.data_ptr<float>());
  EXPECT_TRUE(at::allclose(parameters.gradients(), autograd_parameter_gradients, 1e-4, 1e-5))
      << max_difference(parameters.gradients(), autograd_parameter_gradients);
}

INSTANTIATE_TEST_SUITE_P(Shapes, ContinuousQPassTest,
                         ::testing::Values(PassShape{Activation::relu, {16, 16}},
                                           PassShape{Activation::tanh, {8}},
                                           PassShape{Activation::relu, {}}));

class ContinuousActorPassTest : public ::testing::TestWithParam<PassShape> {};

TEST_P(ContinuousActorPassTest, DeterministicPolicyMatchesAutograd) {
  const auto& [activation, hidden] = GetParam();
  torch::manual_seed(6);
  ContinuousActor actor(ContinuousActorOptions(kObservation, kAction)
                            .hidden_sizes(hidden)
                            .activation(activation));
  FlatParameters parameters(*actor);
  const at::Tensor observations = at::randn({kBatch, kObservation});
  const at::Tensor action_gradients = at::randn({kBatch, kAction});

  const at::Tensor actions = at::tanh(actor->forward(observations));
  (actions * action_gradients).sum().backward();
  const at::Tensor autograd_gradients = parameters.gradients().clone();
  parameters.gradients().fill_(123.0f);

  ContinuousActorPass pass(actor, kBatch);
  const at::Tensor pass_actions =
      view_floats(pass.deterministic(observations.data_ptr<float>()), kBatch, kAction).clone();
  pass.backward(action_gradients.data_ptr<float>());
  EXPECT_TRUE(at::allclose(pass_actions, actions.detach(), 1e-5, 1e-5));
  EXPECT_TRUE(at::allclose(parameters.gradients(), autograd_gradients, 1e-4, 1e-5))
      << max_difference(parameters.gradients(), autograd_gradients);
}

TEST_P(ContinuousActorPassTest, SquashedGaussianSampleMatchesAutograd) {
  const auto& [activation, hidden] = GetParam();
  torch::manual_seed(7);
  ContinuousActor actor(ContinuousActorOptions(kObservation, kAction)
                            .hidden_sizes(hidden)
                            .activation(activation)
                            .stochastic(true));
  {
    // One action's log-std far above the clamp and one far below: no gradient through those.
    torch::NoGradGuard no_grad;
    actor->log_std_head()->bias[0].fill_(40.0f);
    actor->log_std_head()->bias[1].fill_(-60.0f);
  }
  FlatParameters parameters(*actor);
  const at::Tensor observations = at::randn({kBatch, kObservation});
  // Small noise where the std is exp(2): keeps tanh away from saturation, where 1 - a^2 is
  // rounding (tanh_of_array and LibTorch's tanh differ by an ulp there).
  const at::Tensor noise = at::randn({kBatch, kAction});
  noise.select(1, 0).mul_(0.05);
  const at::Tensor action_gradients = at::randn({kBatch, kAction});
  const at::Tensor log_prob_gradients = at::randn({kBatch});

  // SB3's SquashedDiagGaussianDistribution.log_prob_from_params, with tensor ops.
  const auto [actions, log_probs] = actor->sample(observations, noise);
  ((actions * action_gradients).sum() + (log_probs * log_prob_gradients).sum()).backward();
  const at::Tensor autograd_gradients = parameters.gradients().clone();
  parameters.gradients().fill_(123.0f);

  ContinuousActorPass pass(actor, kBatch);
  const at::Tensor pass_actions =
      view_floats(pass.sample(observations.data_ptr<float>(), noise.data_ptr<float>()), kBatch,
                  kAction)
          .clone();
  const at::Tensor pass_log_probs = view_floats(pass.log_probs(), kBatch).clone();
  pass.backward(action_gradients.data_ptr<float>(), log_prob_gradients.data_ptr<float>());
  EXPECT_TRUE(at::allclose(pass_actions, actions.detach(), 1e-5, 1e-5));
  EXPECT_TRUE(at::allclose(pass_log_probs, log_probs.detach(), 1e-4, 1e-4))
      << max_difference(pass_log_probs, log_probs.detach());
  EXPECT_TRUE(at::allclose(parameters.gradients(), autograd_gradients, 1e-3, 1e-4))
      << max_difference(parameters.gradients(), autograd_gradients);
}

INSTANTIATE_TEST_SUITE_P(Shapes, ContinuousActorPassTest,
                         ::testing::Values(PassShape{Activation::relu, {16, 16}},
                                           PassShape{Activation::tanh, {8}},
                                           PassShape{Activation::relu, {}}));

// (full_std, use_expln, log_std_init)
using SdeShape = std::tuple<bool, bool, double>;

class StateDependentActorPassTest : public ::testing::TestWithParam<SdeShape> {};

TEST_P(StateDependentActorPassTest, SampleMatchesAutograd) {
  const auto& [full_std, use_expln, log_std_init] = GetParam();
  torch::manual_seed(9);
  ContinuousActor actor(ContinuousActorOptions(kObservation, kAction)
                            .hidden_sizes({16, 8})
                            .stochastic(true)
                            .state_dependent_noise(true)
                            .full_std(full_std)
                            .use_expln(use_expln)
                            .log_std_init(log_std_init));
  {
    // One action's mean held by the clip at +-2: no gradient through it.
    torch::NoGradGuard no_grad;
    actor->mean_head()->bias[0].fill_(30.0f);
    actor->sde_log_std().add_(at::randn(actor->sde_log_std().sizes()) * 0.3);
  }
  FlatParameters parameters(*actor);
  const std::int64_t latent = 8;
  const at::Tensor observations = at::randn({kBatch, kObservation});
  const at::Tensor unit_weights = at::randn({latent, kAction});
  const at::Tensor action_gradients = at::randn({kBatch, kAction});
  const at::Tensor log_prob_gradients = at::randn({kBatch});

  // SB3's StateDependentNoiseDistribution (learn_features, squash_output), with tensor ops.
  Mlp trunk = actor->trunk();
  torch::nn::Linear mean_head = actor->mean_head();
  const at::Tensor z = trunk->forward(observations);
  const at::Tensor mean = at::clamp(mean_head->forward(z), -2.0, 2.0);
  const at::Tensor log_std = actor->sde_log_std();
  at::Tensor sigma = use_expln ? at::where(log_std > 0, at::log1p(log_std.clamp_min(0)) + 1.0,
                                           at::exp(log_std.clamp_max(0)))
                               : at::exp(log_std);
  if (!full_std) sigma = sigma.expand({latent, kAction});
  const at::Tensor noise = z.mm(sigma * unit_weights);
  const at::Tensor variance = (z * z).mm(sigma * sigma) + 1e-6;
  const at::Tensor actions = at::tanh(mean + noise);
  const at::Tensor log_probs =
      (-(noise * noise) / (2.0 * variance) - 0.5 * at::log(variance) - 0.5 * std::log(2.0 * M_PI))
          .sum(1) -
      at::log(1.0 - actions * actions + 1e-6).sum(1);
  ((actions * action_gradients).sum() + (log_probs * log_prob_gradients).sum()).backward();
  const at::Tensor autograd_gradients = parameters.gradients().clone();
  parameters.gradients().fill_(123.0f);

  ContinuousActorPass pass(actor, kBatch);
  ASSERT_EQ(pass.latent_size(), latent);
  const at::Tensor pass_actions =
      view_floats(pass.sample_state_dependent(observations.data_ptr<float>(),
                                              unit_weights.data_ptr<float>(), false),
                  kBatch, kAction)
          .clone();
  const at::Tensor pass_log_probs = view_floats(pass.log_probs(), kBatch).clone();
  pass.backward(action_gradients.data_ptr<float>(), log_prob_gradients.data_ptr<float>());
  EXPECT_TRUE(at::allclose(pass_actions, actions.detach(), 1e-5, 1e-5));
  EXPECT_TRUE(at::allclose(pass_log_probs, log_probs.detach(), 1e-4, 1e-4))
      << max_difference(pass_log_probs, log_probs.detach());
  EXPECT_TRUE(at::allclose(parameters.gradients(), autograd_gradients, 1e-3, 1e-4))
      << max_difference(parameters.gradients(), autograd_gradients);

  // One matrix per row gives each row its own noise; the deterministic policy is tanh(clip(mean)).
  const at::Tensor per_row = at::randn({kBatch, latent, kAction});
  per_row[2].copy_(unit_weights);
  const at::Tensor row_actions =
      view_floats(pass.sample_state_dependent(observations.data_ptr<float>(),
                                              per_row.data_ptr<float>(), true),
                  kBatch, kAction)
          .clone();
  EXPECT_TRUE(at::allclose(row_actions[2], actions.detach()[2], 1e-5, 1e-5));
  EXPECT_FALSE(at::allclose(row_actions, actions.detach(), 1e-3, 1e-3));
  EXPECT_THROW(pass.backward(action_gradients.data_ptr<float>(),
                             log_prob_gradients.data_ptr<float>()),
               std::logic_error);
  const at::Tensor greedy =
      view_floats(pass.deterministic(observations.data_ptr<float>()), kBatch, kAction).clone();
  EXPECT_TRUE(at::allclose(greedy, at::tanh(mean).detach(), 1e-5, 1e-5));
}

INSTANTIATE_TEST_SUITE_P(Shapes, StateDependentActorPassTest,
                         ::testing::Values(SdeShape{true, false, -1.0}, SdeShape{false, false, -0.5},
                                           SdeShape{true, true, 0.3}));

TEST(ContinuousActorPassTest, DeterministicActorRefusesToSample) {
  ContinuousActor actor(ContinuousActorOptions(2, 1).hidden_sizes({4}));
  ContinuousActorPass pass(actor, 2);
  const std::vector<float> observations(4, 0.5f), noise(2, 0.0f);
  EXPECT_THROW(pass.sample(observations.data(), noise.data()), std::logic_error);
}

TEST(FlatParametersTest, SegmentsGiveEachOptimizerItsOwnRange) {
  torch::manual_seed(8);
  ContinuousQNetwork critic(ContinuousQNetworkOptions(2, 1).hidden_sizes({4}));
  FlatParameters parameters(*critic);
  const std::int64_t half = parameters.numel() / 2;
  const at::Tensor before = parameters.values().clone();
  parameters.gradients().fill_(1.0f);
  FusedAdam adam({parameters.segment(half, parameters.numel() - half)},
                 torch::optim::AdamOptions(0.1));
  adam.step();
  const at::Tensor after = parameters.values();
  EXPECT_TRUE(after.narrow(0, 0, half).equal(before.narrow(0, 0, half)));
  EXPECT_TRUE(
      (after.narrow(0, half, parameters.numel() - half) - before.narrow(0, half, parameters.numel() - half))
          .abs()
          .gt(0.09)
          .all()
          .item<bool>());
  EXPECT_THROW(parameters.segment(half, parameters.numel()), std::out_of_range);
}

}  // namespace
}  // namespace mnrl::nn
