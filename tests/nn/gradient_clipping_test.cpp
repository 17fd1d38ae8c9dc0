#include "nn/gradient_clipping.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <ATen/ops/equal.h>
#include <ATen/ops/isnan.h>
#include <ATen/ops/randn.h>
#include <torch/types.h>  // before clip_grad.h, which uses its names
#include <torch/nn/utils/clip_grad.h>
#include <torch/utils.h>

#include "nn/compute_threads.h"

namespace mnrl::nn {
namespace {

// A flat parameter of 50,001 floats whose gradient has the given 2-norm (before any NaN).
at::Tensor flat_with_gradient_norm(double norm) {
  torch::manual_seed(8);
  at::Tensor flat = at::randn({50001}).requires_grad_();
  at::Tensor gradient = at::randn({50001});
  flat.mutable_grad() = gradient.mul_(norm / gradient.norm().item<double>());
  return flat;
}

// clip_gradient_norm and LibTorch's clip leave the same bits, for each number of threads.
void expect_same_as_libtorch(double norm, double max_norm, bool with_nan = false) {
  for (const int threads : {1, 2}) {
    set_compute_threads(threads);
    at::Tensor ours = flat_with_gradient_norm(norm);
    at::Tensor theirs = flat_with_gradient_norm(norm);
    if (with_nan) {
      ours.grad()[17] = std::numeric_limits<float>::quiet_NaN();
      theirs.grad()[17] = std::numeric_limits<float>::quiet_NaN();
    }
    const at::Tensor before = ours.grad().clone();
    clip_gradient_norm(ours, max_norm);
    torch::nn::utils::clip_grad_norm_(theirs, max_norm);
    set_compute_threads(1);
    if (with_nan) {
      EXPECT_TRUE(at::isnan(ours.grad()).all().item<bool>());
      EXPECT_TRUE(at::isnan(theirs.grad()).all().item<bool>());
    } else {
      EXPECT_TRUE(at::equal(ours.grad(), theirs.grad()))
          << "norm " << norm << ", max " << max_norm << ", threads " << threads;
      EXPECT_EQ(at::equal(ours.grad(), before), norm < max_norm) << "norm " << norm;
    }
  }
}

TEST(GradientClippingTest, LeavesAGradientBelowTheMaximumAsLibTorchDoes) {
  expect_same_as_libtorch(3.0, 10.0);
}

TEST(GradientClippingTest, ScalesAGradientAboveTheMaximumAsLibTorchDoes) {
  expect_same_as_libtorch(25.0, 10.0);
  expect_same_as_libtorch(10.05, 10.0);
}

TEST(GradientClippingTest, AGradientJustBelowTheMaximumGetsLibTorchsOwnClip) {
  expect_same_as_libtorch(9.95, 10.0);
}

TEST(GradientClippingTest, ANanGradientBecomesNanAsWithLibTorch) {
  expect_same_as_libtorch(3.0, 10.0, /*with_nan=*/true);
}

// The device form (what a GPU runs; here on CPU tensors) leaves LibTorch's bits too, clipped
// or not.
TEST(GradientClippingTest, TheDeviceFormIsLibTorchsClipWithoutReadingTheNorm) {
  for (const double norm : {3.0, 9.95, 10.05, 25.0}) {
    at::Tensor ours = flat_with_gradient_norm(norm);
    at::Tensor theirs = flat_with_gradient_norm(norm);
    const at::Tensor before = ours.grad().clone();
    clip_gradient_norm_on_device(ours, 10.0);
    torch::nn::utils::clip_grad_norm_(theirs, 10.0);
    EXPECT_TRUE(at::equal(ours.grad(), theirs.grad())) << "norm " << norm;
    EXPECT_EQ(at::equal(ours.grad(), before), norm < 10.0) << "norm " << norm;
  }
}

}  // namespace
}  // namespace mnrl::nn
