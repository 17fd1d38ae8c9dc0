#include "nn/fused_adam.h"

#include <gtest/gtest.h>

#include <sstream>

#include <ATen/TensorOperators.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/randn.h>
#include <torch/serialize.h>
#include <torch/utils.h>

namespace mnrl::nn {
namespace {

// Runs `steps` steps of `optimizer` over `parameter` with fresh random gradients (seeded).
void run_steps(torch::optim::Optimizer& optimizer, at::Tensor& parameter, int steps, int seed) {
  torch::manual_seed(seed);
  for (int i = 0; i < steps; ++i) {
    parameter.mutable_grad() = at::randn(parameter.sizes());
    optimizer.step();
  }
}

TEST(FusedAdamTest, FollowsTorchAdam) {
  torch::manual_seed(0);
  at::Tensor reference = at::randn({1000}).requires_grad_();
  at::Tensor fused = reference.detach().clone().requires_grad_();
  const auto options = torch::optim::AdamOptions(1e-2).betas({0.8, 0.95}).eps(1e-6);
  torch::optim::Adam adam({reference}, options);
  FusedAdam fused_adam({fused}, options);
  run_steps(adam, reference, 50, 1);
  run_steps(fused_adam, fused, 50, 1);
  EXPECT_FALSE(at::allclose(fused, reference.detach().clone().zero_()));
  EXPECT_TRUE(at::allclose(fused, reference, 1e-5, 1e-6))
      << (fused - reference).abs().max().item<float>();
}

TEST(FusedAdamTest, StateSavesAndLoadsAsTorchAdamState) {
  torch::manual_seed(0);
  at::Tensor a = at::randn({64}).requires_grad_();
  at::Tensor b = a.detach().clone().requires_grad_();
  FusedAdam first({a}, torch::optim::AdamOptions(1e-2));
  run_steps(first, a, 10, 2);

  // A torch::optim::Adam picks up where the fused one stopped, from its saved state.
  std::stringstream saved;
  torch::save(first, saved);
  {
    torch::NoGradGuard no_grad;
    b.copy_(a);
  }
  torch::optim::Adam second({b}, torch::optim::AdamOptions(1e-2));
  torch::load(second, saved);
  run_steps(first, a, 5, 3);
  run_steps(second, b, 5, 3);
  EXPECT_TRUE(at::allclose(a, b, 1e-5, 1e-6));
}

TEST(FusedAdamTest, LeavesWeightDecayToTorchAdam) {
  torch::manual_seed(0);
  at::Tensor reference = at::randn({100}).requires_grad_();
  at::Tensor fused = reference.detach().clone().requires_grad_();
  const auto options = torch::optim::AdamOptions(1e-2).weight_decay(0.1);
  torch::optim::Adam adam({reference}, options);
  FusedAdam fused_adam({fused}, options);
  run_steps(adam, reference, 5, 4);
  run_steps(fused_adam, fused, 5, 4);
  EXPECT_TRUE(at::equal(fused, reference));
}

}  // namespace
}  // namespace mnrl::nn
