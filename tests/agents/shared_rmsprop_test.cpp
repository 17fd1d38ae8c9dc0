// A3C's shared RMSprop: one worker is torch's RMSprop; several share statistics and weights.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include <ATen/TensorOperators.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/zeros.h>
#include <torch/optim/rmsprop.h>
#include <torch/utils.h>

#include "agents/a3c/shared_rmsprop.h"

namespace mnrl::agents {
namespace {

const torch::optim::RMSpropOptions kOptions =
    torch::optim::RMSpropOptions(0.01).alpha(0.9).eps(1e-5);

// A flat parameter tensor with a gradient slot, like nn::FlatParameters.values().
at::Tensor flat_parameters(const at::Tensor& values) {
  at::Tensor p = values.clone().set_requires_grad(true);
  p.mutable_grad() = at::zeros_like(values);
  return p;
}

TEST(SharedRmspropTest, OneWorkerIsTorchRmspropExactly) {
  torch::manual_seed(1);
  const at::Tensor initial = at::randn({10});
  at::Tensor reference = flat_parameters(initial);
  torch::optim::RMSprop torch_rmsprop({reference}, kOptions);
  at::Tensor local = flat_parameters(initial);
  SharedRmsprop shared_rmsprop(local, std::make_shared<SharedModel>(initial), kOptions);
  for (int step = 0; step < 20; ++step) {
    const at::Tensor grad = at::randn({10});
    reference.mutable_grad().copy_(grad);
    local.mutable_grad().copy_(grad);
    torch_rmsprop.step();
    shared_rmsprop.step();
    ASSERT_TRUE(at::equal(reference, local)) << "step " << step;
  }
}

TEST(SharedRmspropTest, WorkersShareStatisticsAndWeights) {
  const at::Tensor initial = at::zeros({3});
  auto shared = std::make_shared<SharedModel>(initial);
  at::Tensor local_a = flat_parameters(initial);
  at::Tensor local_b = flat_parameters(initial);
  SharedRmsprop worker_a(local_a, shared, kOptions);
  SharedRmsprop worker_b(local_b, shared, kOptions);

  const at::Tensor grad_a = at::tensor({1.0f, 2.0f, -1.0f});
  const at::Tensor grad_b = at::tensor({0.5f, -3.0f, 4.0f});
  local_a.mutable_grad().copy_(grad_a);
  worker_a.step();
  local_b.mutable_grad().copy_(grad_b);
  worker_b.step();

  // One running average saw both gradients, in order.
  const at::Tensor expected_average = (grad_a * grad_a * 0.1 * 0.9) + grad_b * grad_b * 0.1;
  EXPECT_TRUE(at::allclose(shared->square_avg, expected_average));
  // Both updates landed on the shared weights, and worker b's copy holds them.
  const at::Tensor step_a = -0.01 * grad_a / ((grad_a * grad_a * 0.1).sqrt() + 1e-5);
  const at::Tensor step_b = -0.01 * grad_b / (expected_average.sqrt() + 1e-5);
  EXPECT_TRUE(at::allclose(shared->parameters, step_a + step_b));
  EXPECT_TRUE(at::equal(local_b, shared->parameters));
  // Worker a's copy is from before b's update; its next step brings it up to date.
  EXPECT_TRUE(at::allclose(local_a, step_a));
}

TEST(SharedRmspropTest, RefusesMismatchedModelsAndUnsharedOptions) {
  const at::Tensor local = flat_parameters(at::zeros({3}));
  EXPECT_THROW(SharedRmsprop(local, std::make_shared<SharedModel>(at::zeros({4})), kOptions),
               std::invalid_argument);
  EXPECT_THROW(SharedRmsprop(local, std::make_shared<SharedModel>(at::zeros({3})),
                             torch::optim::RMSpropOptions(0.01).momentum(0.9)),
               std::invalid_argument);
}

}  // namespace
}  // namespace mnrl::agents
