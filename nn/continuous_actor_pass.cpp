#include "nn/continuous_actor_pass.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <ATen/ops/empty.h>
#include <c10/core/InferenceMode.h>

#include "nn/compute_threads.h"
#include "nn/memory_views.h"
#include "nn/tanh_array.h"

namespace mnrl::nn {
namespace {

constexpr float kHalfLogTwoPi = 0.918938533204672742f;  // log(2 pi) / 2
constexpr float kVarianceEpsilon = 1e-6f;               // SB3's, added to gSDE's variance

// d log(1 - a^2 + epsilon) / du at a = tanh(u), negated: what the tanh correction adds to
// d log p / du.
float squash_slope(float action) {
  const float slope = 1.0f - action * action;
  return 2.0f * action * slope / (slope + ContinuousActorPass::kSquashEpsilon);
}

}  // namespace

ContinuousActorPass::ContinuousActorPass(const ContinuousActor& actor, std::int64_t batch_size)
    : batch_size_(checked_batch_size("ContinuousActorPass", batch_size)),
      observation_size_(actor->options.observation_size()),
      action_size_(actor->options.action_size()),
      latent_size_(actor->trunk()->out_features()),
      stochastic_(actor->options.stochastic()),
      state_dependent_(actor->options.stochastic() && actor->options.state_dependent_noise()),
      options_(actor->options),
      trunk_(actor->trunk()->layers(), actor->options.activation(), batch_size),
      mean_head_(actor->mean_head(), batch_size),
      sde_log_std_(actor->sde_log_std()),
      mean_(at::empty({batch_size, action_size_})),
      actions_(at::empty({batch_size, action_size_})),
      unit_noise_(at::empty({batch_size, action_size_})),
      std_(at::empty({batch_size, action_size_})),
      log_probs_(at::empty({batch_size})) {
  if (stochastic_ && !state_dependent_) log_std_head_ = DenseLayer(actor->log_std_head(), batch_size);
  if (state_dependent_) {
    std_ = at::empty({latent_size_, action_size_});
    noise_ = at::empty({batch_size, action_size_});
    variance_ = at::empty({batch_size, action_size_});
  }
}

std::int64_t ContinuousActorPass::multiply_adds() const {
  return trunk_.multiply_adds() + mean_head_.multiply_adds() +
         (log_std_head_.weight.defined() ? log_std_head_.multiply_adds() : 0);
}

void ContinuousActorPass::forward(const float* observations) {
  const at::Tensor& features =
      trunk_.forward(view_floats(observations, batch_size_, observation_size_));
  mean_head_.forward(features);
  if (log_std_head_.weight.defined()) log_std_head_.forward(features);
  const float* raw = floats(mean_head_.output);
  float* mean = floats(mean_);
  const auto clip = static_cast<float>(options_.clip_mean());
  for (std::int64_t k = 0; k < mean_.numel(); ++k) {
    mean[k] = state_dependent_ ? std::clamp(raw[k], -clip, clip) : raw[k];
  }
}

const float* ContinuousActorPass::deterministic(const float* observations) {
  c10::InferenceMode inference;
  forward(observations);
  tanh_of_array(floats(mean_), floats(actions_), actions_.numel());
  sampled_ = Sampled::no;
  return floats(actions_);
}

const float* ContinuousActorPass::sample(const float* observations, const float* unit_noise) {
  if (!stochastic_ || state_dependent_) {
    throw std::logic_error("ContinuousActorPass: sample() needs an actor with a log-std head");
  }
  c10::InferenceMode inference;
  forward(observations);
  const std::int64_t n = actions_.numel();
  std::memcpy(floats(unit_noise_), unit_noise, static_cast<std::size_t>(n) * sizeof(float));
  const float* mean = floats(mean_);
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
  sampled_ = Sampled::gaussian;
  return actions;
}

void ContinuousActorPass::compute_sigma() {
  const float* log_std = floats(sde_log_std_);
  float* sigma = floats(std_);
  const std::int64_t columns = sde_log_std_.size(1);
  for (std::int64_t i = 0; i < latent_size_; ++i) {
    for (std::int64_t j = 0; j < action_size_; ++j) {
      const float x = log_std[i * columns + (columns == 1 ? 0 : j)];
      sigma[i * action_size_ + j] =
          options_.use_expln() && x > 0.0f ? std::log1p(x) + 1.0f : std::exp(x);
    }
  }
}

const float* ContinuousActorPass::sample_state_dependent(const float* observations,
                                                         const float* unit_weights,
                                                         bool one_per_row) {
  if (!state_dependent_) {
    throw std::logic_error("ContinuousActorPass: the actor has no state-dependent noise");
  }
  c10::InferenceMode inference;
  forward(observations);
  compute_sigma();
  const std::int64_t matrix = latent_size_ * action_size_;
  if (unit_noise_.numel() != (one_per_row ? batch_size_ : 1) * matrix) {
    unit_noise_ = at::empty({(one_per_row ? batch_size_ : 1) * matrix});
  }
  std::memcpy(floats(unit_noise_), unit_weights,
              static_cast<std::size_t>(unit_noise_.numel()) * sizeof(float));
  const float* z = floats(trunk_.features());
  const float* sigma = floats(std_);
  const float* epsilon = floats(unit_noise_);
  const float* mean = floats(mean_);
  float* noise = floats(noise_);
  float* variance = floats(variance_);
  float* actions = floats(actions_);
  float* log_probs = floats(log_probs_);
  for (std::int64_t b = 0; b < batch_size_; ++b) {
    const float* row_epsilon = epsilon + (one_per_row ? b * matrix : 0);
    float log_prob = 0.0f;
    for (std::int64_t j = 0; j < action_size_; ++j) {
      float n = 0.0f, v = kVarianceEpsilon;
      for (std::int64_t i = 0; i < latent_size_; ++i) {
        const float z_i = z[b * latent_size_ + i], s = sigma[i * action_size_ + j];
        n += z_i * s * row_epsilon[i * action_size_ + j];
        v += z_i * z_i * s * s;
      }
      const std::int64_t k = b * action_size_ + j;
      noise[k] = n;
      variance[k] = v;
      const float a = std::tanh(mean[k] + n);
      actions[k] = a;
      log_prob += -0.5f * n * n / v - 0.5f * std::log(v) - kHalfLogTwoPi -
                  std::log(1.0f - a * a + kSquashEpsilon);
    }
    log_probs[b] = log_prob;
  }
  sampled_ = Sampled::state_dependent;
  one_per_row_ = one_per_row;
  return actions;
}

void ContinuousActorPass::gaussian_backward(const float* action_gradients,
                                            const float* log_prob_gradients) {
  // u = mean + std * noise, a = tanh(u). d log p / du = 2a (1 - a^2) / (1 - a^2 + epsilon)
  // (the Gaussian term is constant in u at fixed noise); d log p / d log_std = -1 directly,
  // and log_std moves u by std * noise. The clamp passes gradient inside its bounds.
  const float* actions = floats(actions_);
  const float* raw_log_std = floats(log_std_head_.output);
  const float* std = floats(std_);
  const float* noise = floats(unit_noise_);
  float* mean_gradient = floats(mean_head_.output_gradient);
  float* log_std_gradient = floats(log_std_head_.output_gradient);
  for (std::int64_t i = 0; i < batch_size_; ++i) {
    const float g_log_prob = log_prob_gradients[i];
    for (std::int64_t j = 0; j < action_size_; ++j) {
      const std::int64_t k = i * action_size_ + j;
      const float g_u = action_gradients[k] * (1.0f - actions[k] * actions[k]) +
                        g_log_prob * squash_slope(actions[k]);
      mean_gradient[k] = g_u;
      const bool inside = raw_log_std[k] >= kLogStdMin && raw_log_std[k] <= kLogStdMax;
      log_std_gradient[k] = inside ? g_u * std[k] * noise[k] - g_log_prob : 0.0f;
    }
  }
}

void ContinuousActorPass::state_dependent_backward(const float* action_gradients,
                                                   const float* log_prob_gradients,
                                                   float* features_gradient) {
  // With n = z theta and v = sum_i z_i^2 sigma_i^2 + epsilon per action, the Gaussian term
  // -n^2 / 2v - log(v) / 2 is a function of n and v (u - mean = n: the mean cancels there).
  const float* actions = floats(actions_);
  const float* raw_mean = floats(mean_head_.output);
  const float* z = floats(trunk_.features());
  const float* sigma = floats(std_);
  const float* epsilon = floats(unit_noise_);
  const float* noise = floats(noise_);
  const float* variance = floats(variance_);
  float* mean_gradient = floats(mean_head_.output_gradient);
  const auto clip = static_cast<float>(options_.clip_mean());
  std::vector<float> sigma_gradient(static_cast<std::size_t>(latent_size_ * action_size_), 0.0f);
  for (std::int64_t b = 0; b < batch_size_; ++b) {
    const float g_log_prob = log_prob_gradients[b];
    for (std::int64_t j = 0; j < action_size_; ++j) {
      const std::int64_t k = b * action_size_ + j;
      const float a = actions[k], n = noise[k], v = variance[k];
      const float g_u = action_gradients[k] * (1.0f - a * a) + g_log_prob * squash_slope(a);
      // Hardtanh passes gradient strictly inside its bounds.
      mean_gradient[k] = raw_mean[k] > -clip && raw_mean[k] < clip ? g_u : 0.0f;
      const float g_n = g_u - g_log_prob * n / v;
      const float g_v = g_log_prob * (0.5f * n * n / (v * v) - 0.5f / v);
      for (std::int64_t i = 0; i < latent_size_; ++i) {
        const std::int64_t m = i * action_size_ + j;
        const float z_i = z[b * latent_size_ + i], s = sigma[m];
        const float theta = s * epsilon[m];
        features_gradient[b * latent_size_ + i] += g_n * theta + 2.0f * g_v * z_i * s * s;
        sigma_gradient[static_cast<std::size_t>(m)] +=
            g_n * z_i * epsilon[m] + 2.0f * g_v * z_i * z_i * s;
      }
    }
  }
  // d sigma / d log_std: sigma itself for exp, 1 / (1 + x) for log1p(x) + 1.
  const float* log_std = floats(sde_log_std_);
  float* log_std_gradient = floats(gradient_of(sde_log_std_));
  const std::int64_t columns = sde_log_std_.size(1);
  std::fill_n(log_std_gradient, sde_log_std_.numel(), 0.0f);
  for (std::int64_t i = 0; i < latent_size_; ++i) {
    for (std::int64_t j = 0; j < action_size_; ++j) {
      const std::int64_t p = i * columns + (columns == 1 ? 0 : j), m = i * action_size_ + j;
      const float x = log_std[p];
      const float slope = options_.use_expln() && x > 0.0f ? 1.0f / (1.0f + x) : sigma[m];
      log_std_gradient[p] += sigma_gradient[static_cast<std::size_t>(m)] * slope;
    }
  }
}

void ContinuousActorPass::backward(const float* action_gradients,
                                   const float* log_prob_gradients) {
  if (sampled_ != Sampled::no && !log_prob_gradients) {
    throw std::invalid_argument("ContinuousActorPass: a sample's backward needs log-prob gradients");
  }
  if (sampled_ == Sampled::state_dependent && one_per_row_) {
    throw std::logic_error("ContinuousActorPass: no backward through one exploration matrix per row");
  }
  c10::InferenceMode inference;
  if (sampled_ == Sampled::no) {
    // a = tanh(mean): da/dmean = 1 - a^2 (0 where gSDE's clip holds the mean).
    const float* actions = floats(actions_);
    const float* raw_mean = floats(mean_head_.output);
    const auto clip = static_cast<float>(options_.clip_mean());
    float* mean_gradient = floats(mean_head_.output_gradient);
    for (std::int64_t k = 0; k < actions_.numel(); ++k) {
      const bool passes = !state_dependent_ || (raw_mean[k] > -clip && raw_mean[k] < clip);
      mean_gradient[k] = passes ? action_gradients[k] * (1.0f - actions[k] * actions[k]) : 0.0f;
    }
    if (log_std_head_.weight.defined()) log_std_head_.output_gradient.zero_();
    if (state_dependent_) gradient_of(sde_log_std_).zero_();
  } else if (sampled_ == Sampled::gaussian) {
    gaussian_backward(action_gradients, log_prob_gradients);
  } else {
    sde_features_gradient_.assign(static_cast<std::size_t>(batch_size_ * latent_size_), 0.0f);
    state_dependent_backward(action_gradients, log_prob_gradients, sde_features_gradient_.data());
  }

  const at::Tensor& features = trunk_.features();
  const bool log_std_head = log_std_head_.weight.defined();
  const auto head_parameter_gradients = [&] {
    mean_head_.write_parameter_gradients(features);
    if (log_std_head) log_std_head_.write_parameter_gradients(features);
  };
  if (trunk_.empty()) {
    head_parameter_gradients();
    return;
  }
  at::Tensor& features_gradient = trunk_.features_gradient();
  run_both(mean_head_.multiply_adds(), head_parameter_gradients, [&] {
    mean_head_.input_gradient(features_gradient, /*accumulate=*/false);
    if (log_std_head) log_std_head_.input_gradient(features_gradient, /*accumulate=*/true);
  });
  if (sampled_ == Sampled::state_dependent) {
    // The features' gradient through the noise and the variance, besides the mean head's.
    float* g = floats(features_gradient);
    for (std::size_t k = 0; k < sde_features_gradient_.size(); ++k) g[k] += sde_features_gradient_[k];
  }
  trunk_.backward();
}

}  // namespace mnrl::nn
