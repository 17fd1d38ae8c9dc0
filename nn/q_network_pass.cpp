#include "nn/q_network_pass.h"

#include <ATen/ops/empty.h>
#include <c10/core/InferenceMode.h>

#include <cstring>
#include <stdexcept>

#include "nn/compute_threads.h"
#include "nn/memory_views.h"

namespace mnrl::nn {

QNetworkPass::QNetworkPass(const QNetwork& network, std::int64_t batch_size)
    : dueling_(network->options.dueling()),
      batch_size_(checked_batch_size("QNetworkPass", batch_size)),
      num_actions_(network->options.num_actions()),
      atoms_(network->options.atoms()),
      observation_size_(network->options.observation_size()),
      trunk_(network->trunk()->layers(), network->options.activation(), batch_size,
             network->trunk()->noisy_layers()),
      advantage_head_(network->noisy_advantage_head()
                          ? DenseLayer(network->noisy_advantage_head(), batch_size)
                          : DenseLayer(network->advantage_head(), batch_size)),
      q_(at::empty({batch_size, num_actions_ * atoms_})) {
  if (network->options.quantile_embedding() > 0) {
    throw std::invalid_argument("QNetworkPass: IQN steps through autograd");
  }
  if (dueling_) {
    value_head_ = network->noisy_value_head() ? DenseLayer(network->noisy_value_head(), batch_size)
                                              : DenseLayer(network->value_head(), batch_size);
  }
  if (!network->encoder().is_empty()) encoder_.emplace(network->encoder(), batch_size);
}

std::int64_t QNetworkPass::multiply_adds() const {
  const std::int64_t heads =
      advantage_head_.multiply_adds() + (dueling_ ? value_head_.multiply_adds() : 0);
  return (encoder_ ? encoder_->multiply_adds() : 0) + trunk_.multiply_adds() + heads;
}

const float* QNetworkPass::forward(const float* observations) {
  c10::InferenceMode inference;
  const at::Tensor& features =
      trunk_.forward(encoder_ ? encoder_->forward(observations)
                              : view_floats(observations, batch_size_, observation_size_));
  advantage_head_.forward(features);
  if (!dueling_) return advantage_head_.output.data_ptr<float>();

  // Q = V + A - mean_a A (Wang et al. 2016, eq. 9), per atom.
  value_head_.forward(features);
  const float* a = advantage_head_.output.data_ptr<float>();
  const float* v = value_head_.output.data_ptr<float>();
  float* q = q_.data_ptr<float>();
  const std::int64_t row = num_actions_ * atoms_;
  for (std::int64_t i = 0; i < batch_size_; ++i) {
    for (std::int64_t k = 0; k < atoms_; ++k) {
      const float* a_atom = a + i * row + k;  // action j's at a_atom[j * atoms_]
      float mean = 0.0f;
      for (std::int64_t j = 0; j < num_actions_; ++j) mean += a_atom[j * atoms_];
      mean /= static_cast<float>(num_actions_);
      for (std::int64_t j = 0; j < num_actions_; ++j) {
        q[i * row + j * atoms_ + k] = v[i * atoms_ + k] + a_atom[j * atoms_] - mean;
      }
    }
  }
  return q;
}

void QNetworkPass::backward(const float* q_gradients) {
  c10::InferenceMode inference;
  float* advantage_gradient = advantage_head_.output_gradient.data_ptr<float>();
  if (dueling_) {
    // Per atom, dQ_j/dA_k = [j == k] - 1/n and dQ_j/dV = 1.
    float* value_gradient = value_head_.output_gradient.data_ptr<float>();
    const std::int64_t row = num_actions_ * atoms_;
    for (std::int64_t i = 0; i < batch_size_; ++i) {
      for (std::int64_t k = 0; k < atoms_; ++k) {
        const float* dq = q_gradients + i * row + k;  // action j's at dq[j * atoms_]
        float sum = 0.0f;
        for (std::int64_t j = 0; j < num_actions_; ++j) sum += dq[j * atoms_];
        value_gradient[i * atoms_ + k] = sum;
        const float mean = sum / static_cast<float>(num_actions_);
        for (std::int64_t j = 0; j < num_actions_; ++j) {
          advantage_gradient[i * row + j * atoms_ + k] = dq[j * atoms_] - mean;
        }
      }
    }
  } else {
    std::memcpy(advantage_gradient, q_gradients,
                static_cast<std::size_t>(batch_size_ * num_actions_ * atoms_) * sizeof(float));
  }

  const at::Tensor& features = trunk_.features();
  const auto head_parameter_gradients = [&] {
    advantage_head_.write_parameter_gradients(features);
    if (dueling_) value_head_.write_parameter_gradients(features);
  };
  // d loss / d features goes to the trunk, else to the encoder, else nowhere (the observations).
  at::Tensor* encoder_gradient = encoder_ ? &encoder_->features_gradient() : nullptr;
  at::Tensor* features_gradient = trunk_.empty() ? encoder_gradient : &trunk_.features_gradient();
  if (features_gradient == nullptr) {
    head_parameter_gradients();
    return;
  }
  run_both(advantage_head_.multiply_adds(), head_parameter_gradients, [&] {
    advantage_head_.input_gradient(*features_gradient, /*accumulate=*/false);
    if (dueling_) value_head_.input_gradient(*features_gradient, /*accumulate=*/true);
  });
  if (!trunk_.empty()) trunk_.backward(encoder_gradient);
  if (encoder_) encoder_->backward();
}

}  // namespace mnrl::nn
