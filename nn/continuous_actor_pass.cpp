#include "nn/continuous_actor_pass.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <ATen/ops/empty.h>
#include <c10/core/InferenceMode.h>

#include "nn/compute_threads.h"
#include "nn/memory_views.h"
#include "nn/tanh_array.h"

namespace mnrl::nn {
namespace {

float* floats(const at::Tensor& t) { return t.data_ptr<float>(); }

constexpr float kHalfLogTwoPi = 0.918938533204672742f;  // log(2 pi) / 2

}  // namespace

ContinuousActorPass::ContinuousActorPass(const ContinuousActor& actor, std::int64_t batch_size)
    : batch_size_(checked_batch_size("ContinuousActorPass", batch_size)),
      observation_size_(actor->options.observation_size()),
      action_size_(actor->options.action_size()),
      stochastic_(actor->options.stochastic()),
      trunk_(actor->trunk()->layers(), actor->options.activation(), batch_size),
      mean_head_(actor->mean_head(), batch_size),
      actions_(at::empty({batch_size, action_size_})),
      unit_noise_(at::empty({batch_size, action_size_})),
      std_(at::empty({batch_size, action_size_})),
      log_probs_(at::empty({batch_size})) {
  if (stochastic_) log_std_head_ = DenseLayer(actor->log_std_head(), batch_size);
}

std::int64_t ContinuousActorPass::multiply_adds() const {
  return trunk_.multiply_adds() + mean_head_.multiply_adds() +
         (stochastic_ ? log_std_head_.multiply_adds() : 0);
}

void ContinuousActorPass::forward(const float* observations) {
  const at::Tensor& features =
      trunk_.forward(view_floats(observations, batch_size_, observation_size_));
  mean_head_.forward(features);
  if (stochastic_) log_std_head_.forward(features);
}

const float* ContinuousActorPass::deterministic(const float* observations) {
  c10::InferenceMode inference;
  forward(observations);
  tanh_of_array(floats(mean_head_.output), floats(actions_), actions_.numel());
  sampled_ = false;
  return floats(actions_);
}

const float* ContinuousActorPass::sample(const float* observations, const float* unit_noise) {
  if (!stochastic_) throw std::logic_error("ContinuousActorPass: a deterministic actor cannot sample");
  c10::InferenceMode inference;
  forward(observations);
  const std::int64_t n = actions_.numel();
  std::memcpy(floats(unit_noise_), unit_noise, static_cast<std::size_t>(n) * sizeof(float));
  const float* mean = floats(mean_head_.output);
  const float* raw_log_std = floats(log_std_head_.output);
  float* std = floats(std_);
  float* actions = floats(actions_);
  for (std::int64_t k = 0; k < n; ++k) {
    std[k] = std::exp(std::clamp(raw_log_std[k], kLogStdMin, kLogStdMax));
    actions[k] = mean[k] + std[k] * unit_noise[k];  // u, squashed below
  }
  tanh_of_array(actions, actions, n);
  float* log_probs = floats(log_probs_);
  for (std::int64_t i = 0; i < batch_size_; ++i) {
    float sum = 0.0f;
    for (std::int64_t j = 0; j < action_size_; ++j) {
      const std::int64_t k = i * action_size_ + j;
      const float log_std = std::clamp(raw_log_std[k], kLogStdMin, kLogStdMax);
      // log N(u; mean, std) with (u - mean) / std = noise; then the tanh's change of variables.
      sum += -0.5f * unit_noise[k] * unit_noise[k] - log_std - kHalfLogTwoPi -
             std::log(1.0f - actions[k] * actions[k] + kSquashEpsilon);
    }
    log_probs[i] = sum;
  }
  sampled_ = true;
  return actions;
}

void ContinuousActorPass::backward(const float* action_gradients,
                                   const float* log_prob_gradients) {
  if (sampled_ && !log_prob_gradients) {
    throw std::invalid_argument("ContinuousActorPass: a sample's backward needs log-prob gradients");
  }
  c10::InferenceMode inference;
  const float* actions = floats(actions_);
  float* mean_gradient = floats(mean_head_.output_gradient);
  const std::int64_t n = actions_.numel();
  if (!sampled_) {
    // a = tanh(mean): da/dmean = 1 - a^2.
    for (std::int64_t k = 0; k < n; ++k) {
      mean_gradient[k] = action_gradients[k] * (1.0f - actions[k] * actions[k]);
    }
    if (stochastic_) log_std_head_.output_gradient.zero_();
  } else {
    // u = mean + std * noise, a = tanh(u). d log p / du = 2a (1 - a^2) / (1 - a^2 + epsilon)
    // (the Gaussian term is constant in u at fixed noise); d log p / d log_std = -1 directly,
    // and log_std moves u by std * noise. The clamp passes gradient inside its bounds.
    const float* raw_log_std = floats(log_std_head_.output);
    const float* std = floats(std_);
    const float* noise = floats(unit_noise_);
    float* log_std_gradient = floats(log_std_head_.output_gradient);
    for (std::int64_t i = 0; i < batch_size_; ++i) {
      const float g_log_prob = log_prob_gradients[i];
      for (std::int64_t j = 0; j < action_size_; ++j) {
        const std::int64_t k = i * action_size_ + j;
        const float slope = 1.0f - actions[k] * actions[k];
        const float g_u = action_gradients[k] * slope +
                          g_log_prob * 2.0f * actions[k] * slope / (slope + kSquashEpsilon);
        mean_gradient[k] = g_u;
        const bool inside = raw_log_std[k] >= kLogStdMin && raw_log_std[k] <= kLogStdMax;
        log_std_gradient[k] = inside ? g_u * std[k] * noise[k] - g_log_prob : 0.0f;
      }
    }
  }

  const at::Tensor& features = trunk_.features();
  const auto head_parameter_gradients = [&] {
    mean_head_.write_parameter_gradients(features);
    if (stochastic_) log_std_head_.write_parameter_gradients(features);
  };
  if (trunk_.empty()) {
    head_parameter_gradients();
    return;
  }
  run_both(mean_head_.multiply_adds(), head_parameter_gradients, [&] {
    mean_head_.input_gradient(trunk_.features_gradient(), /*accumulate=*/false);
    if (stochastic_) log_std_head_.input_gradient(trunk_.features_gradient(), /*accumulate=*/true);
  });
  trunk_.backward();
}

}  // namespace mnrl::nn
