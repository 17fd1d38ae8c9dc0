// The DQN family's autograd steps, on the CPU (where nn::GraphedStep runs its step eagerly):
// the TD loss as tensor ops against the host's arithmetic (q_learning.h, which the
// hand-written path uses), and TdGradientSteps with CapturableAdam against that host loss
// backpropagated through its Q gradients, LibTorch's clip and LibTorch's Adam. The capture
// itself is tested on a GPU (gpu_training_tests, bench/gpu/run.sh).
#include "agents/dqn/td_gradient_steps.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/from_blob.h>
#include <gtest/gtest.h>
#include <torch/nn/utils/clip_grad.h>
#include <torch/optim/adam.h>
#include <torch/utils.h>

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "core/rng.h"
#include "random_transitions.h"

namespace mnrl::agents {
namespace {

constexpr std::int64_t kTdObservations = 4, kTdActions = 3;

nn::QNetwork seeded_q_network(bool dueling) {
  torch::manual_seed(11);
  return nn::QNetwork(
      nn::QNetworkOptions(kTdObservations, kTdActions).hidden_sizes({16, 16}).dueling(dueling));
}

at::Tensor rows_of(std::vector<float>& values, std::int64_t columns) {
  return at::from_blob(values.data(),
                       {static_cast<std::int64_t>(values.size()) / columns, columns});
}

// What the hand-written path computes on the host, given Q-values from the networks: the
// loss and the taken Q-values' sum, the |TD errors|, and (written into online's gradients) the
// loss's gradient backpropagated from d loss / d Q.
struct HostStep {
  double loss = 0.0, q_sum = 0.0;
  std::vector<float> td_errors;
};

HostStep host_step(nn::QNetworkImpl& online, nn::QNetworkImpl& target,
                   replay::TransitionBatch batch, bool double_q, TdLoss kind) {
  const auto rows = static_cast<std::int64_t>(batch.rewards.size());
  std::vector<float> targets(static_cast<std::size_t>(rows));
  {
    torch::NoGradGuard no_grad;
    const at::Tensor next = rows_of(batch.next_observations, kTdObservations);
    const at::Tensor next_q = target.forward(next).contiguous();
    const at::Tensor chooser = double_q ? online.forward(next).contiguous() : next_q;
    bootstrapped_targets(batch, next_q.data_ptr<float>(), chooser.data_ptr<float>(), rows,
                         kTdActions, targets.data());
  }
  const at::Tensor q = online.forward(rows_of(batch.observations, kTdObservations));
  const at::Tensor q_values = q.detach().contiguous();
  std::vector<float> q_gradients(static_cast<std::size_t>(rows * kTdActions));
  HostStep step;
  step.td_errors.resize(static_cast<std::size_t>(rows));
  step.loss = td_loss(batch, q_values.data_ptr<float>(), targets.data(), rows, kTdActions, kind,
                      q_gradients.data(), step.td_errors.data());
  for (std::int64_t i = 0; i < rows; ++i) {
    step.q_sum +=
        q_values.data_ptr<float>()[i * kTdActions + static_cast<std::int64_t>(batch.actions[i])];
  }
  q.backward(rows_of(q_gradients, kTdActions));
  return step;
}

TransitionTensors tensors_of(replay::TransitionBatch& batch) {
  TransitionTensors tensors;
  tensors.observations = rows_of(batch.observations, kTdObservations);
  tensors.next_observations = rows_of(batch.next_observations, kTdObservations);
  tensors.actions = rows_of(batch.actions, 1).squeeze(1).to(at::kLong);
  tensors.rewards = rows_of(batch.rewards, 1).squeeze(1);
  std::vector<float> discounts;
  for (std::size_t i = 0; i < batch.discounts.size(); ++i) {
    discounts.push_back(batch.terminated[i] ? 0.0f : batch.discounts[i]);
  }
  tensors.bootstrap_discounts = rows_of(discounts, 1).squeeze(1).clone();
  tensors.weights = rows_of(batch.weights, 1).squeeze(1);
  return tensors;
}

class TdLossTensorsTest : public ::testing::TestWithParam<std::tuple<bool, bool, TdLoss>> {};

TEST_P(TdLossTensorsTest, GivesTheHostsTargetsLossAndGradients) {
  const auto [double_q, dueling, kind] = GetParam();
  nn::QNetwork online = seeded_q_network(dueling);
  nn::QNetwork target = seeded_q_network(dueling);
  {
    torch::NoGradGuard no_grad;  // a target that differs from the online network
    for (auto& p : target->parameters()) p.mul_(0.8).add_(0.05);
  }
  nn::FlatParameters parameters(*online);
  replay::TransitionBatch batch = random_transitions(32, kTdObservations, kTdActions, 3);
  parameters.zero_grad();
  const HostStep host = host_step(*online, *target, batch, double_q, kind);
  const at::Tensor host_gradients = parameters.gradients().clone();

  parameters.zero_grad();
  const TdLossTensors loss = td_loss_tensors(*online, *target, tensors_of(batch), double_q, kind);
  loss.loss.backward();
  EXPECT_NEAR(loss.loss.item<double>(), host.loss, 1e-6 * (1 + std::abs(host.loss)));
  EXPECT_NEAR(loss.q_taken_sum.item<double>(), host.q_sum, 1e-4);
  for (std::size_t i = 0; i < host.td_errors.size(); ++i) {
    EXPECT_NEAR(loss.td_errors[static_cast<std::int64_t>(i)].item<float>(), host.td_errors[i], 1e-5)
        << "row " << i;
  }
  EXPECT_TRUE(at::allclose(parameters.gradients(), host_gradients, 1e-4, 1e-6))
      << (parameters.gradients() - host_gradients).abs().max().item<float>();
  EXPECT_GT(host_gradients.abs().sum().item<float>(), 0.0f);
}

INSTANTIATE_TEST_SUITE_P(Variants, TdLossTensorsTest,
                         ::testing::Combine(::testing::Bool(), ::testing::Bool(),
                                            ::testing::Values(TdLoss::huber, TdLoss::mse)),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) ? "DoubleQ" : "Dqn") +
                                  (std::get<1>(info.param) ? "Dueling" : "") +
                                  (std::get<2>(info.param) == TdLoss::huber ? "Huber" : "Mse");
                         });

// Six steps of TdGradientSteps as the DQN agent runs them on a GPU (graphed, CapturableAdam;
// eager on the CPU) against the host loss, LibTorch's clip and Adam, with a hard target update
// half way (written in place, as the agent does: a captured step reads the target's buffer).
TEST(TdGradientStepsTest, StepAsTheHostLossWithLibTorchsClipAndAdam) {
  constexpr std::int64_t kRows = 32;
  constexpr double kMaxGradNorm = 0.5;  // small: some steps clip
  const auto adam_options = torch::optim::AdamOptions(1e-3);
  TdGradientSteps::Options options;
  options.double_q = true;
  options.max_grad_norm = kMaxGradNorm;
  options.batch_size = kRows;

  nn::QNetwork stepped = seeded_q_network(true), stepped_target = seeded_q_network(true);
  nn::FlatParameters stepped_parameters(*stepped), stepped_target_parameters(*stepped_target);
  nn::CapturableAdam capturable({stepped_parameters.values()}, adam_options);
  const auto expected = make_return_distribution({}, TdLoss::huber);
  core::Rng unused_noise;  // DQN's steps draw no fractions and no noise
  TdGradientSteps steps(stepped, stepped_target, stepped_parameters, capturable, {}, *expected,
                        unused_noise, options, /*graphed=*/true, /*required=*/false);

  nn::QNetwork host = seeded_q_network(true), host_target = seeded_q_network(true);
  nn::FlatParameters host_parameters(*host), host_target_parameters(*host_target);
  torch::optim::Adam adam({host_parameters.values()}, adam_options);

  double host_loss = 0.0, host_q = 0.0;
  for (int step = 0; step < 6; ++step) {
    if (step == 3) {
      torch::NoGradGuard no_grad;
      stepped_target_parameters.values().copy_(stepped_parameters.values());
      host_target_parameters.values().copy_(host_parameters.values());
    }
    replay::TransitionBatch batch =
        random_transitions(kRows, kTdObservations, kTdActions, 10 + step);
    std::vector<float> td_errors(kRows);
    steps.step(batch, td_errors.data());

    host_parameters.zero_grad();
    const HostStep reference = host_step(*host, *host_target, batch, true, TdLoss::huber);
    torch::nn::utils::clip_grad_norm_(host_parameters.values(), kMaxGradNorm);
    adam.step();
    host_loss += reference.loss / 6;
    host_q += reference.q_sum / (6 * kRows);
    for (std::int64_t i = 0; i < kRows; ++i) {
      EXPECT_NEAR(td_errors[i], reference.td_errors[i], 1e-4) << "step " << step << " row " << i;
    }
  }
  const auto [mean_loss, mean_q] = steps.take_means();
  EXPECT_NEAR(mean_loss, host_loss, 1e-5);
  EXPECT_NEAR(mean_q, host_q, 1e-5);
  EXPECT_EQ(steps.take_means(), std::make_pair(0.0, 0.0));  // taken: the sums start again
  EXPECT_TRUE(at::allclose(stepped_parameters.values(), host_parameters.values(), 1e-5, 1e-6))
      << (stepped_parameters.values() - host_parameters.values()).abs().max().item<float>();
  nn::QNetwork initial = seeded_q_network(true);
  EXPECT_FALSE(at::allclose(host_parameters.values(), nn::FlatParameters(*initial).values()));
}

}  // namespace
}  // namespace mnrl::agents
