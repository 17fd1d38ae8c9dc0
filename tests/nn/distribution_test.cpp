#include <ATen/TensorOperators.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/exp.h>
#include <ATen/ops/isfinite.h>
#include <ATen/ops/mean.h>
#include <ATen/ops/sqrt.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/tanh.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros.h>
#include <c10/util/Exception.h>
#include <gtest/gtest.h>
#include <torch/utils.h>

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "nn/diag_gaussian.h"
#include "nn/squashed_diag_gaussian.h"

namespace mnrl::nn {
namespace {

using Matrix = std::vector<std::vector<double>>;

const double kLog2Pi = std::log(2.0 * std::acos(-1.0));

// A [rows, cols] float32 tensor (or of `dtype`) holding `m`.
at::Tensor to_tensor(const Matrix& m, at::ScalarType dtype = at::kFloat) {
  std::vector<double> flat;
  for (const auto& row : m) flat.insert(flat.end(), row.begin(), row.end());
  const auto rows = static_cast<std::int64_t>(m.size());
  return at::tensor(flat).view({rows, -1}).to(dtype);
}

at::Tensor to_tensor(const std::vector<double>& v, at::ScalarType dtype = at::kFloat) {
  return at::tensor(v).to(dtype);
}

double normal_log_pdf(double x, double mean, double log_std) {
  const double z = (x - mean) / std::exp(log_std);
  return -0.5 * z * z - log_std - 0.5 * kLog2Pi;
}

void expect_near(const at::Tensor& actual, const std::vector<double>& expected, double tol) {
  const at::Tensor a = actual.to(at::kDouble).contiguous();
  ASSERT_EQ(a.numel(), static_cast<std::int64_t>(expected.size()));
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(a.data_ptr<double>()[i], expected[i], tol) << "at flat index " << i;
  }
}

const Matrix kMean = {{0.1, -0.4, 1.2}, {-0.7, 0.0, 0.3}};
const std::vector<double> kLogStd = {-0.5, 0.0, 0.4};
const Matrix kRowLogStd = {{-0.5, 0.0, 0.4}, {0.2, -1.0, -0.1}};
const Matrix kActions = {{0.3, 0.2, -1.0}, {-0.1, 1.5, 0.3}};

TEST(DiagGaussianTest, LogProbAndEntropyMatchClosedForm) {
  // Shared [dim] log_std, then a different log_std per row.
  for (const bool per_row : {false, true}) {
    const Matrix log_std = per_row ? kRowLogStd : Matrix{kLogStd, kLogStd};
    const DiagGaussian dist(to_tensor(kMean), per_row ? to_tensor(kRowLogStd) : to_tensor(kLogStd));
    std::vector<double> log_prob(2, 0.0), entropy(2, 0.0);
    for (std::size_t i = 0; i < 2; ++i) {
      for (std::size_t j = 0; j < 3; ++j) {
        log_prob[i] += normal_log_pdf(kActions[i][j], kMean[i][j], log_std[i][j]);
        entropy[i] += 0.5 + 0.5 * kLog2Pi + log_std[i][j];
      }
    }
    const at::Tensor lp = dist.log_prob(to_tensor(kActions));
    EXPECT_EQ(lp.sizes(), (std::vector<std::int64_t>{2}));
    expect_near(lp, log_prob, 1e-5);
    EXPECT_EQ(dist.entropy().sizes(), (std::vector<std::int64_t>{2}));
    expect_near(dist.entropy(), entropy, 1e-5);
  }
}

TEST(DiagGaussianTest, ModeIsTheMean) {
  const at::Tensor mean = to_tensor(kMean);
  EXPECT_TRUE(at::allclose(DiagGaussian(mean, to_tensor(kLogStd)).mode(), mean));
}

TEST(DiagGaussianTest, RejectsMismatchedShapes) {
  EXPECT_THROW(DiagGaussian(at::zeros({2, 3}), at::zeros({2})), c10::Error);
  EXPECT_THROW(DiagGaussian(at::zeros({2, 3}), at::zeros({3, 3})), c10::Error);
  EXPECT_THROW(DiagGaussian(at::zeros({3}), at::zeros({3})), c10::Error);
}

TEST(DiagGaussianTest, SamplesHaveTheGivenMeanAndStd) {
  torch::manual_seed(0);
  constexpr std::int64_t kDraws = 100000;
  const std::vector<double> mean = {0.5, -1.0};
  const std::vector<double> log_std = {-1.0, 0.5};
  const at::Tensor mean_param = to_tensor(Matrix{mean}).requires_grad_();
  const DiagGaussian dist(mean_param.expand({kDraws, 2}), to_tensor(log_std).requires_grad_());
  const at::Tensor samples = dist.sample();
  EXPECT_EQ(samples.sizes(), (std::vector<std::int64_t>{kDraws, 2}));
  EXPECT_FALSE(samples.requires_grad());
  EXPECT_TRUE(dist.rsample().requires_grad());
  const at::Tensor x = samples.to(at::kDouble);
  const at::Tensor sample_mean = at::mean(x, /*dim=*/0, /*keepdim=*/false);
  const at::Tensor centered = x - sample_mean;
  const at::Tensor sample_std =
      at::sqrt(at::mean(centered * centered, /*dim=*/0, /*keepdim=*/false));
  for (std::int64_t j = 0; j < 2; ++j) {
    const double std = std::exp(log_std[j]);
    // Five standard errors: std / sqrt(n) for the mean, about std / sqrt(2 n) for the std.
    EXPECT_NEAR(sample_mean[j].item<double>(), mean[j], 5 * std / std::sqrt(kDraws));
    EXPECT_NEAR(sample_std[j].item<double>(), std, 5 * std / std::sqrt(2.0 * kDraws));
  }
}

TEST(DiagGaussianTest, GradientsMatchAnalyticForm) {
  // d log_prob / d mean = (a - m) / s^2, d log_prob / d log_std = (a - m)^2 / s^2 - 1,
  // summed over the batch where log_std is shared; d entropy / d log_std = 1 per row.
  for (const bool per_row : {false, true}) {
    const at::Tensor mean = to_tensor(kMean).requires_grad_();
    const at::Tensor log_std =
        (per_row ? to_tensor(kRowLogStd) : to_tensor(kLogStd)).requires_grad_();
    const DiagGaussian dist(mean, log_std);
    dist.log_prob(to_tensor(kActions)).sum().backward();

    std::vector<double> mean_grad;
    std::vector<double> log_std_grad(per_row ? 6 : 3, 0.0);
    for (std::size_t i = 0; i < 2; ++i) {
      for (std::size_t j = 0; j < 3; ++j) {
        const double s2 = std::exp(2 * (per_row ? kRowLogStd[i][j] : kLogStd[j]));
        const double d = kActions[i][j] - kMean[i][j];
        mean_grad.push_back(d / s2);
        log_std_grad[per_row ? 3 * i + j : j] += d * d / s2 - 1.0;
      }
    }
    expect_near(mean.grad(), mean_grad, 1e-5);
    expect_near(log_std.grad(), log_std_grad, 1e-5);

    log_std.mutable_grad().zero_();
    dist.entropy().sum().backward();
    expect_near(log_std.grad(), std::vector<double>(per_row ? 6 : 3, per_row ? 1.0 : 2.0), 1e-6);
  }
}

// The squashed density's integral and entropy over (-1, 1) for a 1-D case, by the midpoint rule
// on `points` cells, computed in float64.
std::pair<double, double> squashed_integral_and_entropy(double mean, double log_std,
                                                        std::int64_t points = 20000) {
  const double h = 2.0 / static_cast<double>(points);
  const at::Tensor a = (at::arange(points, at::kDouble) + 0.5) * h - 1.0;
  const SquashedDiagGaussian dist(at::zeros({points, 1}, at::kDouble) + mean,
                                  at::zeros({1}, at::kDouble) + log_std);
  const at::Tensor log_p = dist.log_prob(a.view({points, 1}));
  const at::Tensor p = at::exp(log_p);
  return {at::sum(p).item<double>() * h, -at::sum(p * log_p).item<double>() * h};
}

TEST(SquashedDiagGaussianTest, LogProbMatchesChangeOfVariables) {
  const Matrix mean = {{0.1, -0.4}, {-0.7, 0.5}};
  const std::vector<double> log_std = {-0.5, 0.4};
  const Matrix actions = {{0.3, -0.9}, {0.95, 0.0}};
  const SquashedDiagGaussian dist(to_tensor(mean), to_tensor(log_std));
  std::vector<double> expected(2, 0.0);
  for (std::size_t i = 0; i < 2; ++i) {
    for (std::size_t j = 0; j < 2; ++j) {
      const double a = actions[i][j];
      expected[i] += normal_log_pdf(std::atanh(a), mean[i][j], log_std[j]) -
                     std::log(1.0 - a * a + SquashedDiagGaussian::kEpsilon);
    }
  }
  expect_near(dist.log_prob(to_tensor(actions)), expected, 1e-4);
  // The same from the pre-tanh values, without the atanh round trip.
  Matrix pre_tanh = actions;
  for (auto& row : pre_tanh) {
    for (auto& x : row) x = std::atanh(x);
  }
  expect_near(dist.log_prob_from_pre_tanh(to_tensor(pre_tanh)), expected, 1e-4);
}

TEST(SquashedDiagGaussianTest, ModeIsTanhOfTheMean) {
  const at::Tensor mean = to_tensor(kMean);
  EXPECT_TRUE(at::allclose(SquashedDiagGaussian(mean, to_tensor(kLogStd)).mode(), at::tanh(mean)));
}

TEST(SquashedDiagGaussianTest, SamplesAreTanhOfGaussianSamplesStrictlyInside) {
  constexpr std::int64_t kDraws = 100000;
  const at::Tensor mean = to_tensor(Matrix{{0.0, 1.0}}).expand({kDraws, 2});
  const at::Tensor log_std = to_tensor({0.0, -0.5});
  const SquashedDiagGaussian dist(mean, log_std);
  torch::manual_seed(5);
  const at::Tensor samples = dist.sample();
  torch::manual_seed(5);
  const at::Tensor gaussian = DiagGaussian(mean, log_std).sample();
  EXPECT_TRUE(at::allclose(samples, at::tanh(gaussian)));
  EXPECT_FALSE(samples.requires_grad());
  EXPECT_LT(samples.abs().max().item<double>(), 1.0);
}

TEST(SquashedDiagGaussianTest, LogProbAtTheBoundsIsFinite) {
  for (const auto dtype : {at::kFloat, at::kDouble}) {
    const at::Tensor mean = to_tensor(Matrix{{0.2, -0.3}, {0.0, 0.0}}, dtype).requires_grad_();
    const at::Tensor log_std = to_tensor({-0.2, 0.1}, dtype).requires_grad_();
    const SquashedDiagGaussian dist(mean, log_std);
    const at::Tensor lp = dist.log_prob(to_tensor(Matrix{{1.0, -1.0}, {-1.0, 1.0}}, dtype));
    EXPECT_TRUE(at::isfinite(lp).all().item<bool>()) << lp;
    lp.sum().backward();
    EXPECT_TRUE(at::isfinite(mean.grad()).all().item<bool>());
    EXPECT_TRUE(at::isfinite(log_std.grad()).all().item<bool>());
  }
}

TEST(SquashedDiagGaussianTest, LogProbIntegratesToOne) {
  // Without the log(1 - a^2) correction the integral is far from 1 (e.g. about 0.6 at mean 0,
  // std 1), so this checks the correction term.
  for (const auto& [mean, log_std] :
       std::vector<std::pair<double, double>>{{0.0, 0.0}, {0.8, -0.7}, {-0.5, 0.3}}) {
    EXPECT_NEAR(squashed_integral_and_entropy(mean, log_std).first, 1.0, 1e-3)
        << "mean " << mean << ", log_std " << log_std;
  }
}

TEST(SquashedDiagGaussianTest, EntropyEstimateAndItsGradientAreUnbiased) {
  // The one-sample estimate averaged over many rows matches the entropy by quadrature, and its
  // gradient matches the quadrature entropy's finite differences.
  constexpr double kMean = 0.3;
  constexpr double kLogStdValue = -0.2;
  constexpr std::int64_t kDraws = 200000;
  torch::manual_seed(11);
  const at::Tensor mean = to_tensor(Matrix{{kMean}}).requires_grad_();
  const at::Tensor log_std = to_tensor(std::vector<double>{kLogStdValue}).requires_grad_();
  const SquashedDiagGaussian dist(mean.expand({kDraws, 1}), log_std);
  const at::Tensor entropy = dist.entropy();
  EXPECT_EQ(entropy.sizes(), (std::vector<std::int64_t>{kDraws}));
  const at::Tensor estimate = at::mean(entropy);
  estimate.backward();

  const double exact = squashed_integral_and_entropy(kMean, kLogStdValue).second;
  EXPECT_NEAR(estimate.item<double>(), exact, 0.01);
  constexpr double kDelta = 1e-3;
  const auto entropy_at = [](double m, double s) {
    return squashed_integral_and_entropy(m, s).second;
  };
  const double d_mean =
      (entropy_at(kMean + kDelta, kLogStdValue) - entropy_at(kMean - kDelta, kLogStdValue)) /
      (2 * kDelta);
  const double d_log_std =
      (entropy_at(kMean, kLogStdValue + kDelta) - entropy_at(kMean, kLogStdValue - kDelta)) /
      (2 * kDelta);
  EXPECT_LT(d_mean, -0.05);  // moving the mean off 0 lowers the entropy: a non-trivial check
  EXPECT_NEAR(mean.grad().item<double>(), d_mean, 0.01);
  EXPECT_NEAR(log_std.grad().item<double>(), d_log_std, 0.01);
}

}  // namespace
}  // namespace mnrl::nn
