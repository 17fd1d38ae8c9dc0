// GraphedGradientSteps on the CPU, where nn::GraphedStep runs its step eagerly: what is tested
// here is the step itself (the staged rollout, the minibatch's rows on the device, the loss parts
// summed there, CapturableAdam's update) against the eager autograd step with LibTorch's Adam.
// The capture itself is tested on a GPU (gpu_training_tests, bench/gpu/run.sh).
#include "agents/graphed_gradient_steps.h"

#include <gtest/gtest.h>

#include <cmath>

#include <ATen/TensorOperators.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/randperm.h>
#include <torch/nn/utils/clip_grad.h>
#include <torch/optim/adam.h>
#include <torch/utils.h>

namespace mnrl::agents {
namespace {

nn::ActorCritic seeded_model() {
  torch::manual_seed(5);
  return nn::ActorCritic(nn::ActorCriticOptions(4, 2).hidden_sizes({32, 32}));
}

RolloutBatch random_rollout(std::int64_t rows) {
  torch::manual_seed(6);
  return {at::randn({rows, 4}),
          at::randint(0, 2, {rows}, at::kLong),
          at::randn({rows}) * 0.1 - 0.7,
          at::randn({rows}),
          at::randn({rows}),
          at::randn({rows}),
          {},
          {}};
}

TEST(GraphedGradientStepsTest, StepsAsTheEagerAutogradStepWithLibTorchsAdam) {
  constexpr std::int64_t kRows = 64, kMinibatch = 16;
  ActorCriticLossOptions options{0.2, std::nullopt, 0.5, 0.01, true};
  constexpr double kMaxGradNorm = 0.5;
  const auto adam_options = torch::optim::AdamOptions(3e-3).eps(1e-5);

  nn::ActorCritic graphed_model = seeded_model();
  nn::FlatParameters graphed_parameters(*graphed_model);
  nn::CapturableAdam capturable({graphed_parameters.values()}, adam_options);
  GraphedGradientSteps steps(graphed_model, graphed_parameters, capturable, false);

  nn::ActorCritic eager_model = seeded_model();
  nn::FlatParameters eager_parameters(*eager_model);
  torch::optim::Adam adam({eager_parameters.values()}, adam_options);
  ASSERT_TRUE(at::equal(graphed_parameters.values(), eager_parameters.values()));

  const RolloutBatch rollout = random_rollout(kRows);
  for (int update = 0; update < 3; ++update) {
    // A clip range scheduled down (the steps of another constant are captured anew).
    options.clip_range = 0.2 - 0.05 * update;
    // Each update stages its rollout, and its sums start at 0.
    const RolloutBatch& staged = steps.stage(rollout);
    LossSums graphed_sums;
    LossValues eager_sums;
    torch::manual_seed(update);
    const at::Tensor order = at::randperm(kRows, at::kLong);
    for (std::int64_t start = 0; start < kRows; start += kMinibatch) {
      steps.step(staged, {order, start, kMinibatch}, options, kMaxGradNorm, graphed_sums);

      eager_parameters.zero_grad();
      const ActorCriticLoss loss = actor_critic_loss(
          *eager_model, rollout.select(order.slice(0, start, start + kMinibatch)), options);
      loss.total.backward();
      eager_sums.policy_loss += loss.policy_loss.item<double>() / (kRows / kMinibatch);
      eager_sums.value_loss += loss.value_loss.item<double>() / (kRows / kMinibatch);
      eager_sums.entropy += loss.entropy.item<double>() / (kRows / kMinibatch);
      torch::nn::utils::clip_grad_norm_(eager_parameters.values(), kMaxGradNorm);
      adam.step();
    }
    const LossValues means = graphed_sums.means();
    EXPECT_NEAR(means.policy_loss, eager_sums.policy_loss, 1e-5) << "update " << update;
    EXPECT_NEAR(means.value_loss, eager_sums.value_loss, 1e-5) << "update " << update;
    EXPECT_NEAR(means.entropy, eager_sums.entropy, 1e-5) << "update " << update;
    EXPECT_GT(means.approx_kl, 0.0) << "update " << update;  // the policy moved
  }
  EXPECT_TRUE(at::allclose(graphed_parameters.values(), eager_parameters.values(), 1e-5, 1e-6))
      << (graphed_parameters.values() - eager_parameters.values()).abs().max().item<float>();
  nn::ActorCritic initial = seeded_model();
  EXPECT_FALSE(at::allclose(eager_parameters.values(), nn::FlatParameters(*initial).values()));
}

}  // namespace
}  // namespace mnrl::agents
