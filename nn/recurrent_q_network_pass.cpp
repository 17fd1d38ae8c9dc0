#include "nn/recurrent_q_network_pass.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <c10/core/InferenceMode.h>

#include "nn/memory_views.h"

namespace mnrl::nn {

RecurrentQNetworkPass::RecurrentQNetworkPass(const RecurrentQNetwork& network, std::int64_t steps,
                                             std::int64_t batch)
    : rows_(steps * batch),
      observation_size_(network->options.observation_size()),
      core_(network->core(), steps, batch),
      trunk_(network->trunk()->layers(), network->options.activation(), steps * batch),
      advantage_head_(network->advantage_head(), steps * batch) {
  if (!network->encoder().is_empty()) encoder_.emplace(network->encoder(), rows_);
  if (!network->options.dueling()) return;
  value_head_.emplace(network->value_head(), rows_);
  q_ = at::empty({rows_, network->options.num_actions()});
  q_gradient_ = at::empty_like(q_);
}

void RecurrentQNetworkPass::forward(const float* observations, const float* episode_starts,
                                    const float* state) {
  c10::InferenceMode inference;
  const at::Tensor input = encoder_ ? encoder_->forward(observations)
                                    : view_floats(observations, rows_, observation_size_);
  core_.forward(input, episode_starts, state);
  const at::Tensor& features = trunk_.forward(core_.policy_features());
  advantage_head_.forward(features);
  if (!value_head_) return;
  value_head_->forward(features);
  const std::int64_t actions = q_.size(1);
  const float* a = floats(advantage_head_.output);
  const float* v = floats(value_head_->output);
  float* q = floats(q_);
  for (std::int64_t r = 0; r < rows_; ++r) {
    float sum = 0.0f;
    for (std::int64_t j = 0; j < actions; ++j) sum += a[r * actions + j];
    const float mean = sum / static_cast<float>(actions);
    for (std::int64_t j = 0; j < actions; ++j) q[r * actions + j] = v[r] + a[r * actions + j] - mean;
  }
}

std::int64_t RecurrentQNetworkPass::multiply_adds() const {
  std::int64_t sum = core_.multiply_adds() + trunk_.multiply_adds() + advantage_head_.multiply_adds();
  if (encoder_) sum += encoder_->multiply_adds();
  if (value_head_) sum += value_head_->multiply_adds();
  return sum;
}

const float* RecurrentQNetworkPass::q_values() const {
  return floats(value_head_ ? q_ : advantage_head_.output);
}

float* RecurrentQNetworkPass::q_gradient() {
  return floats(value_head_ ? q_gradient_ : advantage_head_.output_gradient);
}

void RecurrentQNetworkPass::backward(const float* gradient_stops) {
  c10::InferenceMode inference;
  if (value_head_) {
    // d Q_j / d A_k = [j == k] - 1 / actions, d Q_j / d V = 1.
    const std::int64_t actions = q_.size(1);
    const float* g = floats(q_gradient_);
    float* a = floats(advantage_head_.output_gradient);
    float* v = floats(value_head_->output_gradient);
    for (std::int64_t r = 0; r < rows_; ++r) {
      float sum = 0.0f;
      for (std::int64_t j = 0; j < actions; ++j) sum += g[r * actions + j];
      const float mean = sum / static_cast<float>(actions);
      for (std::int64_t j = 0; j < actions; ++j) a[r * actions + j] = g[r * actions + j] - mean;
      v[r] = sum;
    }
  }
  const at::Tensor& features = trunk_.features();
  advantage_head_.write_parameter_gradients(features);
  if (value_head_) value_head_->write_parameter_gradients(features);
  at::Tensor& features_gradient =
      trunk_.empty() ? core_.policy_features_gradient() : trunk_.features_gradient();
  advantage_head_.input_gradient(features_gradient, /*accumulate=*/false);
  if (value_head_) value_head_->input_gradient(features_gradient, /*accumulate=*/true);
  if (!trunk_.empty()) trunk_.backward(&core_.policy_features_gradient());
  core_.backward(encoder_ ? &encoder_->features_gradient() : nullptr, gradient_stops);
  if (encoder_) encoder_->backward();
}

}  // namespace mnrl::nn
