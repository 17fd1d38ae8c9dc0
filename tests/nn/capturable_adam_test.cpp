#include "nn/capturable_adam.h"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>

#include <ATen/TensorOperators.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/randn.h>
#include <torch/serialize.h>
#include <torch/utils.h>

#include "nn/learning_rate.h"

namespace mnrl::nn {
namespace {

// Runs `steps` steps of `optimizer` over `parameter` with fresh random gradients (seeded), the
// learning rate halved every 10 steps (as a schedule changes it between updates).
void run_scheduled_steps(torch::optim::Optimizer& optimizer, at::Tensor& parameter, int steps, int seed) {
  torch::manual_seed(seed);
  for (int i = 0; i < steps; ++i) {
    if (i % 10 == 0) set_learning_rate(optimizer, learning_rate_of(optimizer) / 2);
    parameter.mutable_grad() = at::randn(parameter.sizes());
    optimizer.step();
  }
}

TEST(CapturableAdamTest, FollowsTorchAdamAsTheLearningRateChanges) {
  torch::manual_seed(0);
  at::Tensor reference = at::randn({1000}).requires_grad_();
  at::Tensor ours = reference.detach().clone().requires_grad_();
  const auto options = torch::optim::AdamOptions(1e-2).betas({0.8, 0.95}).eps(1e-6);
  torch::optim::Adam adam({reference}, options);
  CapturableAdam capturable({ours}, options);
  run_scheduled_steps(adam, reference, 50, 1);
  run_scheduled_steps(capturable, ours, 50, 1);
  EXPECT_FALSE(at::allclose(ours, reference.detach().clone().zero_()));
  EXPECT_TRUE(at::allclose(ours, reference, 1e-6, 1e-7))
      << (ours - reference).abs().max().item<float>();
}

// A replay runs update() alone: it must read this step's scalars, not the first step's.
TEST(CapturableAdamTest, UpdateReadsTheScalarsOfTheLatestPreparedStep) {
  torch::manual_seed(0);
  at::Tensor a = at::randn({64}).requires_grad_();
  at::Tensor b = a.detach().clone().requires_grad_();
  CapturableAdam whole({a}, torch::optim::AdamOptions(1e-2));
  CapturableAdam halves({b}, torch::optim::AdamOptions(1e-2));
  torch::manual_seed(4);
  for (int i = 0; i < 20; ++i) {
    const at::Tensor gradient = at::randn({64});
    a.mutable_grad() = gradient.clone();
    b.mutable_grad() = gradient.clone();
    whole.step();
    halves.prepare_step();
    halves.update();
  }
  EXPECT_TRUE(at::equal(a, b));
}

TEST(CapturableAdamTest, StateSavesAndLoadsAsTorchAdamState) {
  torch::manual_seed(0);
  at::Tensor a = at::randn({64}).requires_grad_();
  at::Tensor b = a.detach().clone().requires_grad_();
  CapturableAdam first({a}, torch::optim::AdamOptions(1e-2));
  run_scheduled_steps(first, a, 10, 2);

  // A torch::optim::Adam picks up where the capturable one stopped, from its saved state.
  std::stringstream saved;
  torch::save(first, saved);
  {
    torch::NoGradGuard no_grad;
    b.copy_(a);
  }
  torch::optim::Adam second({b}, torch::optim::AdamOptions(learning_rate_of(first)));
  torch::load(second, saved);
  run_scheduled_steps(first, a, 5, 3);
  run_scheduled_steps(second, b, 5, 3);
  EXPECT_TRUE(at::allclose(a, b, 1e-6, 1e-7));
}

TEST(CapturableAdamTest, RefusesWeightDecayAndAmsgrad) {
  at::Tensor a = at::randn({4}).requires_grad_();
  EXPECT_THROW(CapturableAdam({a}, torch::optim::AdamOptions(1e-3).weight_decay(0.1)),
               std::invalid_argument);
  EXPECT_THROW(CapturableAdam({a}, torch::optim::AdamOptions(1e-3).amsgrad(true)),
               std::invalid_argument);
}

}  // namespace
}  // namespace mnrl::nn
