// The distributional DQN variants' pieces against their formulas: C51's projection (a worked
// example, and a second algorithm), the quantile Huber loss (written out as loops), IQN's
// network shapes, noisy layers' noise; then each kind's whole loss, stepped by TdGradientSteps,
// learning a known return distribution.
#include "agents/dqn/distributional_losses.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/softmax.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros.h>
#include <gtest/gtest.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/adam.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "agents/dqn/return_distribution.h"
#include "agents/dqn/td_gradient_steps.h"
#include "core/rng.h"
#include "nn/capturable_adam.h"
#include "nn/flat_parameters.h"
#include "nn/noisy_linear.h"
#include "nn/q_network.h"
#include "nn/q_network_pass.h"
#include "random_transitions.h"

namespace mnrl::agents {
namespace {

at::Tensor floats(std::vector<float> values) { return at::tensor(values, at::kFloat); }

TEST(CategoricalProjectionTest, WorkedExample) {
  // Support -2, -1, 0, 1, 2 (dz = 1).
  const at::Tensor rewards = floats({0.5f, 3.0f, -0.25f, 0.0f});
  const at::Tensor discounts = floats({1.0f, 0.9f, 0.0f, 0.5f});  // row 2 terminated
  const at::Tensor next = floats({0,   0,   1,   0,   0,          // all at 0: lands on 0.5
                                  0.2, 0.2, 0.2, 0.2, 0.2,        // 3 + 0.9 z: all but one past 2
                                  0.1, 0.2, 0.3, 0.2, 0.2,        // terminated: all at -0.25
                                  0.1, 0.2, 0.3, 0.2, 0.2})       // 0.5 z: halfway between atoms
                              .view({4, 5});
  const at::Tensor projected = categorical_projection(rewards, discounts, next, -2.0, 2.0);
  // Row 1: 0.5 splits evenly between 0 and 1. Row 2: 3 + 0.9 z = 1.2, 2.1, 3, 3.9, 4.8: the
  // first splits 0.8 / 0.2 between 1 and 2, the rest clamp to 2. Row 3: -0.25 is 1/4 of the
  // way from 0 to -1. Row 4: -1, -0.5, 0, 0.5, 1.
  const at::Tensor expected = floats({0, 0,    0.5,  0.5,  0,     //
                                      0, 0,    0,    0.16, 0.84,  //
                                      0, 0.25, 0.75, 0,    0,     //
                                      0, 0.2,  0.5,  0.3,  0})
                                  .view({4, 5});
  EXPECT_TRUE(at::allclose(projected, expected, 1e-6, 1e-6)) << projected;
}

// Algorithm 1 of Bellemare et al. with lower and upper neighbours (where they coincide the
// mass goes to that atom), on random rows.
TEST(CategoricalProjectionTest, EqualsTheNeighbourSplitOfThePaper) {
  constexpr int kRows = 64, kAtoms = 11;
  constexpr double kMin = -3.0, kMax = 7.0, kDelta = (kMax - kMin) / (kAtoms - 1);
  torch::manual_seed(3);
  const at::Tensor rewards = at::randn({kRows}) * 4;
  at::Tensor discounts = at::rand({kRows});
  discounts.index_put_({at::tensor(std::vector<std::int64_t>{0, 5, 9})}, 0.0);
  const at::Tensor next = at::softmax(at::randn({kRows, kAtoms}), 1);
  const at::Tensor projected = categorical_projection(rewards, discounts, next, kMin, kMax);
  for (int i = 0; i < kRows; ++i) {
    std::vector<double> m(kAtoms, 0.0);
    for (int j = 0; j < kAtoms; ++j) {
      const double z = kMin + j * kDelta;
      const double landed =
          std::clamp(rewards[i].item<double>() + discounts[i].item<double>() * z, kMin, kMax);
      const double b = (landed - kMin) / kDelta;
      const auto lower = static_cast<int>(std::floor(b)), upper = static_cast<int>(std::ceil(b));
      const double p = next[i][j].item<double>();
      if (lower == upper) {
        m[lower] += p;
      } else {
        m[lower] += p * (upper - b);
        m[upper] += p * (b - lower);
      }
    }
    for (int k = 0; k < kAtoms; ++k) {
      EXPECT_NEAR(projected[i][k].item<double>(), m[k], 1e-5) << "row " << i << " atom " << k;
    }
  }
}

// rho^kappa_tau(u) = |tau - 1{u < 0}| L_kappa(u) / kappa, summed over the quantiles i, averaged
// over the targets j.
double quantile_loss_by_formula(const std::vector<double>& quantiles,
                                const std::vector<double>& targets,
                                const std::vector<double>& fractions, double kappa) {
  double loss = 0.0;
  for (std::size_t i = 0; i < quantiles.size(); ++i) {
    double mean = 0.0;
    for (double target : targets) {
      const double u = target - quantiles[i];
      const double huber = std::abs(u) <= kappa ? 0.5 * u * u : kappa * (std::abs(u) - 0.5 * kappa);
      mean += std::abs(fractions[i] - (u < 0 ? 1.0 : 0.0)) * huber / kappa;
    }
    loss += mean / static_cast<double>(targets.size());
  }
  return loss;
}

std::vector<double> row(const at::Tensor& t, int i) {
  const at::Tensor r = t[i].to(at::kDouble).contiguous();
  return {r.data_ptr<double>(), r.data_ptr<double>() + r.numel()};
}

TEST(QuantileHuberLossTest, EqualsItsFormula) {
  constexpr int kRows = 8, kQuantiles = 5, kTargets = 7;
  torch::manual_seed(5);
  const at::Tensor quantiles = at::randn({kRows, kQuantiles}) * 2;
  const at::Tensor targets = at::randn({kRows, kTargets}) * 2;
  const at::Tensor sampled = at::rand({kRows, kQuantiles});
  const at::Tensor midpoints = quantile_midpoints(kQuantiles, {});
  EXPECT_TRUE(at::allclose(midpoints, floats({0.1f, 0.3f, 0.5f, 0.7f, 0.9f})));
  for (double kappa : {1.0, 0.5, 3.0}) {
    const at::Tensor fixed = quantile_huber_loss(quantiles, targets, midpoints, kappa);
    const at::Tensor per_row = quantile_huber_loss(quantiles, targets, sampled, kappa);
    ASSERT_EQ(fixed.sizes(), at::IntArrayRef({kRows}));
    for (int i = 0; i < kRows; ++i) {
      EXPECT_NEAR(fixed[i].item<double>(),
                  quantile_loss_by_formula(row(quantiles, i), row(targets, i),
                                           {0.1, 0.3, 0.5, 0.7, 0.9}, kappa),
                  1e-5);
      EXPECT_NEAR(
          per_row[i].item<double>(),
          quantile_loss_by_formula(row(quantiles, i), row(targets, i), row(sampled, i), kappa),
          1e-5);
    }
  }
}

TEST(DistortedFractionsTest, RiskMeasures) {
  const at::Tensor tau = floats({0.1f, 0.5f, 0.9f});
  EXPECT_TRUE(at::allclose(distorted_fractions(tau, "neutral", 0.7), tau));
  EXPECT_TRUE(at::allclose(distorted_fractions(tau, "cvar", 0.25), tau * 0.25));
  // Wang with eta 0 is the identity; eta < 0 moves every fraction down (risk-averse).
  EXPECT_TRUE(at::allclose(distorted_fractions(tau, "wang", 0.0), tau, 1e-5, 1e-6));
  EXPECT_TRUE((distorted_fractions(tau, "wang", -0.75) < tau).all().item<bool>());
  EXPECT_NEAR(distorted_fractions(tau, "wang", -0.75)[1].item<double>(),
              0.5 * (1 + std::erf(-0.75 / std::sqrt(2.0))), 1e-6);
  EXPECT_TRUE(at::allclose(distorted_fractions(tau, "pow", 1.0), tau.sqrt()));
  EXPECT_TRUE(at::allclose(distorted_fractions(tau, "pow", -1.0), 1 - (1 - tau).sqrt()));
}

TEST(ImplicitQuantileNetworkTest, Shapes) {
  for (bool dueling : {false, true}) {
    nn::QNetwork network(
        nn::QNetworkOptions(4, 3).hidden_sizes({16, 8}).quantile_embedding(12).dueling(dueling));
    // The trunk ends before the last hidden layer, which follows the mixing.
    EXPECT_EQ(network->trunk()->out_features(), 16);
    EXPECT_EQ(network->mixed_layer()->layers().size(), 1u);
    const at::Tensor observations = at::randn({5, 4});
    const at::Tensor fractions = at::rand({5, 6});
    EXPECT_EQ(network->fraction_features(fractions).sizes(), at::IntArrayRef({5, 6, 16}));
    const at::Tensor quantiles = network->forward(observations, fractions);
    EXPECT_EQ(quantiles.sizes(), at::IntArrayRef({5, 3, 6}));
    // Each fraction's quantiles depend on that fraction alone.
    const at::Tensor first = network->forward(observations, fractions.narrow(1, 0, 1));
    EXPECT_TRUE(at::allclose(first.squeeze(2), quantiles.select(2, 0), 1e-5, 1e-6));
    EXPECT_THROW(network->forward(observations), std::logic_error);
    ReturnDistributionOptions iqn;
    iqn.distributional = "iqn";
    iqn.policy_quantile_samples = 4;
    EXPECT_EQ(
        make_return_distribution(iqn, TdLoss::huber)->q_values(*network, observations).sizes(),
        at::IntArrayRef({5, 3}));
  }
  nn::QNetwork no_hidden(nn::QNetworkOptions(4, 2).hidden_sizes({}).quantile_embedding(8));
  EXPECT_EQ(no_hidden->forward(at::randn({3, 4}), at::rand({3, 5})).sizes(),
            at::IntArrayRef({3, 2, 5}));
}

TEST(NoisyLinearTest, NoiseStatisticsAndTheNoiseFreeLayer) {
  // f(e) = sign(e) sqrt(|e|), e ~ N(0, 1): mean 0, E f(e)^2 = E |e| = sqrt(2 / pi).
  core::Rng rng(7);
  std::vector<float> noise(200000);
  nn::draw_factorised_noise(rng, static_cast<std::int64_t>(noise.size()), noise.data());
  double sum = 0.0, squares = 0.0;
  for (float f : noise) {
    sum += f;
    squares += static_cast<double>(f) * f;
  }
  const double n = static_cast<double>(noise.size());
  EXPECT_NEAR(sum / n, 0.0, 0.01);
  EXPECT_NEAR(squares / n, std::sqrt(2.0 / M_PI), 0.01);

  torch::manual_seed(1);
  nn::NoisyLinear layer(6, 4, 0.5);
  EXPECT_TRUE(at::allclose(layer->weight_sigma(), at::full({4, 6}, 0.5 / std::sqrt(6.0))));
  EXPECT_TRUE(at::allclose(layer->bias_sigma(), at::full({4}, 0.5 / std::sqrt(6.0))));
  const at::Tensor x = at::randn({3, 6});
  torch::nn::Linear mean = layer->mean();
  const at::Tensor noise_free = mean->forward(x);
  EXPECT_TRUE(at::allclose(layer->forward(x), noise_free));  // no noise set yet
  const at::Tensor e_in = at::randn({6}), e_out = at::randn({4});
  layer->set_noise(at::cat({e_in, e_out}));
  const at::Tensor weight =
      layer->mean()->weight + layer->weight_sigma() * e_out.unsqueeze(1) * e_in.unsqueeze(0);
  const at::Tensor bias = layer->mean()->bias + layer->bias_sigma() * e_out;
  EXPECT_TRUE(at::allclose(layer->forward(x), x.matmul(weight.t()) + bias, 1e-5, 1e-6));
  EXPECT_FALSE(at::allclose(layer->forward(x), noise_free));
  layer->set_noise(at::zeros({10}));
  EXPECT_TRUE(at::allclose(layer->forward(x), noise_free));
}

// The hand-written path of DQN, C51 and QR-DQN (QNetworkPass, the host arithmetic of
// distributional_arithmetic.h) against the tensor loss backpropagated by autograd: the same
// loss, priorities and parameter gradients (noisy layers' sigmas too, under noise that differs
// between the networks), for plain and dueling heads, DQN and Double DQN
// targets, rows that terminated and returns beyond the support (the support is [-2, 2]).
struct HostCase {
  const char* kind;
  bool dueling, double_q, noisy;
};

class HostDistributionalLossTest : public ::testing::TestWithParam<HostCase> {};

TEST_P(HostDistributionalLossTest, EqualsTheTensorLossThroughAutograd) {
  constexpr std::int64_t kRows = 24, kObservations = 4, kActions = 3;
  ReturnDistributionOptions options;
  options.distributional = GetParam().kind;
  options.atoms = 11;
  options.v_min = -2.0;
  options.v_max = 2.0;
  options.n_quantiles = 7;
  options.kappa = 0.7;
  const auto distribution = make_return_distribution(options, TdLoss::huber);
  const auto network_options =
      distribution->network(nn::QNetworkOptions(kObservations, kActions)
                                .hidden_sizes({16, 16})
                                .dueling(GetParam().dueling)
                                .noisy_sigma0(GetParam().noisy ? 0.5 : 0.0));
  torch::manual_seed(21);
  nn::QNetwork online(network_options), target(network_options);
  nn::FlatParameters parameters(*online);
  if (GetParam().noisy) {
    torch::NoGradGuard no_grad;
    online->set_noise(at::randn({online->noise_size()}));
    target->set_noise(at::randn({target->noise_size()}));
  }

  replay::TransitionBatch batch = random_transitions(kRows, kObservations, kActions, 4);
  TransitionTensors tensors;
  tensors.observations = at::tensor(batch.observations).view({kRows, kObservations});
  tensors.next_observations = at::tensor(batch.next_observations).view({kRows, kObservations});
  tensors.actions = at::tensor(batch.actions).to(at::kLong);
  tensors.rewards = at::tensor(batch.rewards);
  std::vector<float> bootstrap(kRows);
  for (std::int64_t i = 0; i < kRows; ++i) {
    bootstrap[i] = batch.terminated[i] ? 0.0f : batch.discounts[i];
  }
  tensors.bootstrap_discounts = at::tensor(bootstrap);
  tensors.weights = at::tensor(batch.weights);

  parameters.zero_grad();
  const TdLossTensors loss = distribution->loss(*online, *target, tensors, GetParam().double_q);
  loss.loss.backward();
  const at::Tensor autograd_gradients = parameters.gradients().clone();

  nn::QNetworkPass online_pass(online, kRows), target_pass(target, kRows),
      chooser_pass(online, kRows);
  const float* outputs = online_pass.forward(batch.observations.data());
  const float* next = target_pass.forward(batch.next_observations.data());
  const float* chooser =
      GetParam().double_q ? chooser_pass.forward(batch.next_observations.data()) : next;
  std::vector<float> output_gradients(
      static_cast<std::size_t>(online_pass.atoms() * kRows * kActions));
  std::vector<float> td_errors(kRows);
  const HostLoss host = distribution->host_loss(batch, outputs, next, chooser, kRows, kActions,
                                                output_gradients.data(), td_errors.data());
  parameters.zero_grad();
  online_pass.backward(output_gradients.data());

  EXPECT_NEAR(host.loss, loss.loss.item<double>(), 1e-5 * std::abs(host.loss));
  EXPECT_NEAR(host.q_taken_sum, loss.q_taken_sum.item<double>(), 1e-4);
  for (std::int64_t i = 0; i < kRows; ++i) {
    EXPECT_NEAR(td_errors[i], loss.td_errors[i].item<float>(), 1e-5) << "row " << i;
  }
  EXPECT_TRUE(at::allclose(parameters.gradients(), autograd_gradients, 1e-4, 1e-6))
      << (parameters.gradients() - autograd_gradients).abs().max().item<float>();
  EXPECT_GT(autograd_gradients.abs().max().item<float>(), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, HostDistributionalLossTest,
    ::testing::Values(HostCase{"c51", false, false, false}, HostCase{"c51", true, true, false},
                      HostCase{"qr", false, true, false}, HostCase{"qr", true, false, false},
                      HostCase{"c51", true, true, true}, HostCase{"qr", false, false, true},
                      HostCase{"none", true, true, true}),
    [](const auto& info) {
      return std::string(info.param.kind) + (info.param.dueling ? "Dueling" : "") +
             (info.param.double_q ? "DoubleQ" : "") + (info.param.noisy ? "Noisy" : "");
    });

// One state, one action that ends the episode with a reward of 0, 2 or 10 with probabilities
// 0.5, 0.3, 0.2 (each batch holds them in these proportions, so the only noise is the
// learner's): each kind's loss, stepped by TdGradientSteps with Adam, learns
// that distribution (C51: its probabilities; QR-DQN and IQN: its quantiles), noisy or not.
struct LearnedCase {
  const char* kind;
  bool noisy;
};

class ReturnDistributionLearningTest : public ::testing::TestWithParam<LearnedCase> {};

TEST_P(ReturnDistributionLearningTest, LearnsAKnownDistribution) {
  ReturnDistributionOptions options;
  options.distributional = GetParam().kind;
  options.atoms = 11;
  options.v_min = 0.0;
  options.v_max = 10.0;
  options.n_quantiles = 10;
  options.quantile_samples = options.target_quantile_samples = 8;
  options.quantile_embedding = 16;
  const auto distribution = make_return_distribution(options, TdLoss::huber);
  const auto network_options = distribution->network(
      nn::QNetworkOptions(2, 2).hidden_sizes({32, 32}).noisy_sigma0(GetParam().noisy ? 0.1 : 0.0));
  torch::manual_seed(2);
  nn::QNetwork online(network_options), target(network_options);
  nn::FlatParameters parameters(*online);
  nn::FlatParameters(*target).values().detach().copy_(parameters.values().detach());
  nn::CapturableAdam adam({parameters.values()}, torch::optim::AdamOptions(3e-3));
  TdGradientSteps::Options step_options;
  step_options.batch_size = 60;
  core::Rng noise(9);
  TdGradientSteps steps(online, target, parameters, adam, {}, *distribution, noise, step_options,
                        /*graphed=*/true, /*required=*/false);
  replay::TransitionBatch batch;
  for (int i = 0; i < 60; ++i) {
    batch.observations.insert(batch.observations.end(), {1.0f, -1.0f});
    batch.next_observations.insert(batch.next_observations.end(), {0.0f, 0.0f});
    batch.actions.push_back(0.0f);
    batch.terminated.push_back(1);
    batch.discounts.push_back(0.99f);
    batch.weights.push_back(1.0f);
    batch.rewards.push_back(i % 10 < 5 ? 0.0f : i % 10 < 8 ? 2.0f : 10.0f);
  }
  for (int step = 0; step < 1500; ++step) steps.step(batch, nullptr);
  torch::NoGradGuard no_grad;
  online->set_noise(at::zeros({online->noise_size()}));
  const at::Tensor state = floats({1.0f, -1.0f}).view({1, 2});
  const std::string kind = GetParam().kind;
  // The mean return is 0.5 * 0 + 0.3 * 2 + 0.2 * 10 = 2.6.
  EXPECT_NEAR(distribution->q_values(*online, state)[0][0].item<double>(), 2.6, 0.2);
  if (kind == "c51") {
    const at::Tensor p = at::softmax(online->forward(state)[0][0], -1);
    EXPECT_NEAR(p[0].item<double>(), 0.5, 0.05);
    EXPECT_NEAR(p[2].item<double>(), 0.3, 0.05);
    EXPECT_NEAR(p[10].item<double>(), 0.2, 0.05);
  } else {
    // Quantiles at 0.25 (0), 0.65 (2) and 0.95 (10): QR's 3rd, 7th and 10th of 10 midpoints.
    const at::Tensor q =
        kind == "qr" ? online->forward(state)[0][0]
                     : online->forward(state, floats({0.25f, 0.65f, 0.95f}).view({1, 3}))[0][0];
    const std::vector<double> expected{0.0, 2.0, 10.0};
    for (int i = 0; i < 3; ++i) {
      const int at = kind == "qr" ? std::vector<int>{2, 6, 9}[i] : i;
      EXPECT_NEAR(q[at].item<double>(), expected[i], 0.5) << "quantile " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, ReturnDistributionLearningTest,
                         ::testing::Values(LearnedCase{"c51", false}, LearnedCase{"qr", false},
                                           LearnedCase{"iqn", false}, LearnedCase{"qr", true}),
                         [](const auto& info) {
                           return std::string(info.param.kind) + (info.param.noisy ? "Noisy" : "");
                         });

}  // namespace
}  // namespace mnrl::agents
