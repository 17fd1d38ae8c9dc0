// gSDE against closed forms: the per-state Gaussian it stands for, its exploration noise, its
// std parameterizations and the gradients each option lets through.
#include "nn/state_dependent_noise.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/tanh.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros.h>
#include <gtest/gtest.h>
#include <torch/utils.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/state_stream.h"

namespace mnrl::nn {
namespace {

using Matrix = std::vector<std::vector<double>>;

const double kLog2Pi = std::log(2.0 * std::acos(-1.0));

at::Tensor to_tensor(const Matrix& m) {
  std::vector<double> flat;
  for (const auto& row : m) flat.insert(flat.end(), row.begin(), row.end());
  return at::tensor(flat).view({static_cast<std::int64_t>(m.size()), -1}).to(at::kFloat);
}

double at2(const at::Tensor& t, std::int64_t i, std::int64_t j) {
  return t.to(at::kDouble)[i][j].item<double>();
}

// Three latent features, two actions, two states.
const Matrix kLatent = {{0.5, -1.0, 0.25}, {2.0, 0.1, -0.3}};
const Matrix kMean = {{0.1, -0.4}, {-0.7, 0.3}};
const Matrix kLogStd = {{-0.5, 0.2}, {0.0, -1.0}, {0.4, -0.3}};  // [latent, action]
const Matrix kActions = {{0.3, 0.2}, {-0.1, 0.9}};

// sigma_j(s)^2 = sum_i z_i(s)^2 exp(log_std_ij)^2 + 1e-6.
double state_variance(std::size_t row, std::size_t action, const Matrix& log_std) {
  double variance = StateDependentNoise::kEpsilon;
  for (std::size_t i = 0; i < kLatent[row].size(); ++i) {
    const double std = std::exp(log_std[i][log_std[i].size() == 1 ? 0 : action]);
    variance += kLatent[row][i] * kLatent[row][i] * std * std;
  }
  return variance;
}

double normal_log_pdf(double x, double mean, double variance) {
  return -0.5 * (x - mean) * (x - mean) / variance - 0.5 * std::log(variance) - 0.5 * kLog2Pi;
}

TEST(StateDependentNoiseTest, LogProbAndEntropyAreThoseOfTheStateDependentGaussian) {
  for (const bool full_std : {true, false}) {
    SCOPED_TRACE(full_std ? "full_std" : "one std per feature");
    const Matrix log_std = full_std ? kLogStd : Matrix{{-0.5}, {0.0}, {0.4}};
    const StateDependentNoise sde(3, 2, StateDependentNoiseOptions().full_std(full_std));
    const auto distribution =
        sde.distribution(to_tensor(kMean), to_tensor(log_std), to_tensor(kLatent), false);
    const at::Tensor log_prob = distribution->log_prob(to_tensor(kActions));
    const at::Tensor entropy = distribution->entropy();
    ASSERT_EQ(log_prob.sizes(), (std::vector<std::int64_t>{2}));
    for (std::size_t row = 0; row < 2; ++row) {
      double expected_log_prob = 0, expected_entropy = 0;
      for (std::size_t j = 0; j < 2; ++j) {
        const double variance = state_variance(row, j, log_std);
        expected_log_prob += normal_log_pdf(kActions[row][j], kMean[row][j], variance);
        expected_entropy += 0.5 + 0.5 * kLog2Pi + 0.5 * std::log(variance);
      }
      EXPECT_NEAR(log_prob[row].item<double>(), expected_log_prob, 1e-5);
      EXPECT_NEAR(entropy[row].item<double>(), expected_entropy, 1e-5);
    }
    EXPECT_TRUE(at::equal(distribution->mode(), to_tensor(kMean)));
  }
}

TEST(StateDependentNoiseTest, SquashedLogProbAddsTheTanhChangeOfVariables) {
  const StateDependentNoise sde(3, 2, StateDependentNoiseOptions().squash(true));
  const auto distribution =
      sde.distribution(to_tensor(kMean), to_tensor(kLogStd), to_tensor(kLatent), false);
  const at::Tensor log_prob = distribution->log_prob(to_tensor(kActions));
  for (std::size_t row = 0; row < 2; ++row) {
    double expected = 0;
    for (std::size_t j = 0; j < 2; ++j) {
      const double a = kActions[row][j];
      expected += normal_log_pdf(std::atanh(a), kMean[row][j], state_variance(row, j, kLogStd)) -
                  std::log(1 - a * a + 1e-6);
    }
    EXPECT_NEAR(log_prob[row].item<double>(), expected, 1e-4);
  }
  EXPECT_TRUE(at::allclose(distribution->mode(), at::tanh(to_tensor(kMean))));
  const at::Tensor samples = distribution->sample();
  EXPECT_TRUE((samples.abs() <= 1).all().item<bool>());
}

TEST(StateDependentNoiseTest, ExplorationNoiseIsTheLatentTimesTheDrawnWeights) {
  torch::manual_seed(11);
  StateDependentNoise sde(3, 2, StateDependentNoiseOptions());
  sde.resample(2);  // one matrix per state
  ASSERT_EQ(sde.count(), 2);
  const at::Tensor log_std = to_tensor(kLogStd);
  const at::Tensor noise = sde.noise(to_tensor(kLatent), log_std);
  const at::Tensor first =
      sde.distribution(to_tensor(kMean), log_std, to_tensor(kLatent), true)->sample();
  const at::Tensor again =
      sde.distribution(to_tensor(kMean), log_std, to_tensor(kLatent), true)->sample();
  // Same states, same matrices: the same actions, mean + noise.
  EXPECT_TRUE(at::equal(first, again));
  EXPECT_TRUE(at::allclose(first, to_tensor(kMean) + noise));
  // Row r's noise is z(s_r) theta_r, theta_r = sigma * eps_r: the same eps scaled by another
  // std gives noise scaled accordingly (all log-stds + log 2 doubles every weight).
  EXPECT_TRUE(at::allclose(sde.noise(to_tensor(kLatent), log_std + std::log(2.0)), noise * 2));
  // A zero latent row explores nowhere.
  const at::Tensor zero_row = sde.noise(at::zeros({2, 3}), log_std);
  EXPECT_EQ(zero_row.abs().sum().item<double>(), 0.0);
  sde.resample(2);
  EXPECT_FALSE(at::allclose(sde.noise(to_tensor(kLatent), log_std), noise));
}

TEST(StateDependentNoiseTest, NoiseOverManyDrawsHasTheStateVariance) {
  torch::manual_seed(12);
  constexpr std::int64_t kDraws = 40000;
  StateDependentNoise sde(3, 2, StateDependentNoiseOptions());
  sde.resample(kDraws);
  const at::Tensor latent = to_tensor({kLatent[0]}).expand({kDraws, 3});
  const at::Tensor noise = sde.noise(latent, to_tensor(kLogStd));
  const at::Tensor variance = noise.var(0);
  for (std::int64_t j = 0; j < 2; ++j) {
    const double expected = state_variance(0, static_cast<std::size_t>(j), kLogStd);
    EXPECT_NEAR(variance[j].item<double>(), expected, 0.03 * expected);  // ~4 standard errors
  }
  EXPECT_NEAR(noise.mean().item<double>(), 0.0, 0.03);
}

TEST(StateDependentNoiseTest, ExplnStdIsExpBelowZeroAndLog1pPlusOneAbove) {
  const StateDependentNoise sde(1, 5, StateDependentNoiseOptions().use_expln(true));
  const at::Tensor log_std = at::tensor({-2.0, -0.5, 0.0, 0.5, 100.0}).to(at::kFloat).view({1, 5});
  const at::Tensor std = sde.weight_std(log_std);
  const std::vector<double> expected = {std::exp(-2.0), std::exp(-0.5), 1.0, std::log1p(0.5) + 1,
                                        std::log1p(100.0) + 1};
  for (std::int64_t j = 0; j < 5; ++j) EXPECT_NEAR(at2(std, 0, j), expected[j], 1e-6);
  // Finite gradients on both sides, even far out.
  const at::Tensor far = at::tensor({-200.0, 200.0}).to(at::kFloat).view({1, 2}).requires_grad_();
  StateDependentNoise(1, 2, StateDependentNoiseOptions().use_expln(true))
      .weight_std(far)
      .sum()
      .backward();
  EXPECT_TRUE(far.grad().isfinite().all().item<bool>());
  EXPECT_NEAR(at2(far.grad(), 0, 1), 1.0 / 201.0, 1e-6);
}

TEST(StateDependentNoiseTest, FeaturesLearnThroughTheStdOnlyWithLearnFeatures) {
  for (const bool learn_features : {false, true}) {
    SCOPED_TRACE(learn_features ? "learn_features" : "detached features");
    StateDependentNoise sde(3, 2, StateDependentNoiseOptions().learn_features(learn_features));
    const at::Tensor latent = to_tensor(kLatent).requires_grad_();
    const at::Tensor log_std = to_tensor(kLogStd).requires_grad_();
    sde.distribution(to_tensor(kMean), log_std, latent, false)
        ->log_prob(to_tensor(kActions))
        .sum()
        .backward();
    EXPECT_GT(log_std.grad().abs().sum().item<double>(), 0.0);
    if (learn_features) {
      ASSERT_TRUE(latent.grad().defined());
      EXPECT_GT(latent.grad().abs().sum().item<double>(), 0.0);
    } else {
      EXPECT_FALSE(latent.grad().defined());
    }
  }
}

TEST(StateDependentNoiseTest, CheckpointKeepsTheExplorationMatrices) {
  torch::manual_seed(13);
  StateDependentNoise sde(3, 2, StateDependentNoiseOptions());
  sde.resample(2);
  core::StateWriter out;
  sde.save_state(out);

  StateDependentNoise restored(3, 2, StateDependentNoiseOptions());
  core::StateReader in(out.bytes(), "test state");
  restored.load_state(in, 2);
  in.expect_end();
  const at::Tensor log_std = to_tensor(kLogStd);
  EXPECT_TRUE(at::equal(restored.noise(to_tensor(kLatent), log_std),
                        sde.noise(to_tensor(kLatent), log_std)));

  core::StateReader other(out.bytes(), "test state");
  EXPECT_THROW(restored.load_state(other, 4), core::StateError);  // a run with 4 envs
}

}  // namespace
}  // namespace mnrl::nn
