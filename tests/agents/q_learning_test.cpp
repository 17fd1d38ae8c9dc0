#include "agents/dqn/q_learning.h"

#include <gtest/gtest.h>

#include <vector>

namespace mnrl::agents {
namespace {

// Two rows, two actions. Row 0 bootstraps (discount 0.9); row 1 terminated.
replay::TransitionBatch two_rows() {
  replay::TransitionBatch batch;
  batch.actions = {1.0f, 0.0f};
  batch.rewards = {1.0f, 2.0f};
  batch.terminated = {0, 1};
  batch.discounts = {0.9f, 0.9f};
  batch.weights = {1.0f, 1.0f};
  return batch;
}

TEST(QLearningTest, DqnTargetTakesTheTargetNetworksMax) {
  const auto batch = two_rows();
  const std::vector<float> target_q = {1.0f, 5.0f, 7.0f, 3.0f};
  std::vector<float> targets(2);
  bootstrapped_targets(batch, target_q.data(), target_q.data(), 2, 2, targets.data());
  EXPECT_FLOAT_EQ(targets[0], 1.0f + 0.9f * 5.0f);
  EXPECT_FLOAT_EQ(targets[1], 2.0f);  // terminated: the reward alone
}

TEST(QLearningTest, DoubleDqnTargetValuesTheOnlineChoiceWithTheTargetNetwork) {
  auto batch = two_rows();
  batch.terminated = {0, 0};
  const std::vector<float> target_q = {1.0f, 5.0f, 7.0f, 3.0f};
  const std::vector<float> online_q = {4.0f, 2.0f, 0.0f, 6.0f};  // picks actions 0 and 1
  std::vector<float> targets(2);
  bootstrapped_targets(batch, target_q.data(), online_q.data(), 2, 2, targets.data());
  EXPECT_FLOAT_EQ(targets[0], 1.0f + 0.9f * 1.0f);  // not max(1, 5) = 5
  EXPECT_FLOAT_EQ(targets[1], 2.0f + 0.9f * 3.0f);  // not max(7, 3) = 7
}

TEST(QLearningTest, HuberLossIsQuadraticNearZeroAndLinearBeyondOne) {
  auto batch = two_rows();
  const std::vector<float> q = {0.0f, 1.5f, -1.0f, 0.0f};  // Q(s0, 1) = 1.5, Q(s1, 0) = -1
  const std::vector<float> targets = {1.0f, 2.0f};         // errors 0.5 and -3
  std::vector<float> gradients(4), errors(2);
  const double loss = td_loss(batch, q.data(), targets.data(), 2, 2, TdLoss::huber,
                              gradients.data(), errors.data());
  EXPECT_DOUBLE_EQ(loss, (0.5 * 0.25 + (3.0 - 0.5)) / 2);
  EXPECT_EQ(gradients, (std::vector<float>{0.0f, 0.5f / 2, -1.0f / 2, 0.0f}));
  EXPECT_EQ(errors, (std::vector<float>{0.5f, 3.0f}));
}

TEST(QLearningTest, ImportanceWeightsScaleSquaredErrorLossAndGradients) {
  auto batch = two_rows();
  batch.weights = {0.5f, 1.0f};
  const std::vector<float> q = {0.0f, 1.5f, -1.0f, 0.0f};
  const std::vector<float> targets = {1.0f, 2.0f};
  std::vector<float> gradients(4), errors(2);
  const double loss = td_loss(batch, q.data(), targets.data(), 2, 2, TdLoss::mse,
                              gradients.data(), errors.data());
  EXPECT_DOUBLE_EQ(loss, (0.5 * 0.25 + 9.0) / 2);
  EXPECT_EQ(gradients, (std::vector<float>{0.0f, 0.5f * 2 * 0.5f / 2, 2 * -3.0f / 2, 0.0f}));
}

TEST(QLearningTest, ArgmaxTakesTheFirstOfEqualValues) {
  const std::vector<float> values = {1.0f, 3.0f, 3.0f};
  EXPECT_EQ(argmax(values.data(), 3), 1);
}

}  // namespace
}  // namespace mnrl::agents
