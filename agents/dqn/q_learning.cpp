#include "agents/dqn/q_learning.h"

#include <algorithm>
#include <cmath>

namespace mnrl::agents {

std::int64_t argmax(const float* values, std::int64_t n) {
  std::int64_t best = 0;
  for (std::int64_t j = 1; j < n; ++j) best = values[j] > values[best] ? j : best;
  return best;
}

void bootstrapped_targets(const replay::TransitionBatch& batch, const float* target_q,
                          const float* chooser_q, std::int64_t rows, std::int64_t num_actions,
                          float* targets) {
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int64_t best = argmax(chooser_q + i * num_actions, num_actions);
    const float bootstrap = target_q[i * num_actions + best];
    targets[i] = batch.rewards[i] + (batch.terminated[i] ? 0.0f : batch.discounts[i] * bootstrap);
  }
}

double td_loss(const replay::TransitionBatch& batch, const float* q, const float* targets,
               std::int64_t rows, std::int64_t num_actions, TdLoss loss, float* q_gradients,
               float* td_errors) {
  std::fill(q_gradients, q_gradients + rows * num_actions, 0.0f);
  double total = 0.0;
  for (std::int64_t i = 0; i < rows; ++i) {
    const auto action = static_cast<std::int64_t>(batch.actions[i]);
    const float error = q[i * num_actions + action] - targets[i];
    const float magnitude = std::abs(error);
    td_errors[i] = magnitude;
    const bool huber = loss == TdLoss::huber;
    const float value =
        huber ? (magnitude < 1.0f ? 0.5f * error * error : magnitude - 0.5f) : error * error;
    const float slope = huber ? std::clamp(error, -1.0f, 1.0f) : 2.0f * error;
    total += static_cast<double>(batch.weights[i] * value);
    q_gradients[i * num_actions + action] = batch.weights[i] * slope / static_cast<float>(rows);
  }
  return total / static_cast<double>(rows);
}

}  // namespace mnrl::agents
