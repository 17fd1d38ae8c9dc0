#include "nn/continuous_q_pass.h"

#include <cstring>

#include <ATen/ops/empty.h>
#include <c10/core/InferenceMode.h>

#include "nn/compute_threads.h"

namespace mnrl::nn {

ContinuousQPass::ContinuousQPass(const ContinuousQNetwork& network, std::int64_t batch_size)
    : batch_size_(checked_batch_size("ContinuousQPass", batch_size)),
      observation_size_(network->options.observation_size()),
      action_size_(network->options.action_size()),
      input_(at::empty({batch_size, observation_size_ + action_size_})),
      input_gradient_(at::empty({batch_size, observation_size_ + action_size_})),
      trunk_(network->trunk()->layers(), network->options.activation(), batch_size),
      head_(network->head(), batch_size) {}

std::int64_t ContinuousQPass::multiply_adds() const {
  return trunk_.multiply_adds() + head_.multiply_adds();
}

const float* ContinuousQPass::forward(const float* observations, const float* actions) {
  c10::InferenceMode inference;
  const std::int64_t width = observation_size_ + action_size_;
  float* rows = input_.data_ptr<float>();
  for (std::int64_t i = 0; i < batch_size_; ++i) {
    std::memcpy(rows + i * width, observations + i * observation_size_,
                static_cast<std::size_t>(observation_size_) * sizeof(float));
    std::memcpy(rows + i * width + observation_size_, actions + i * action_size_,
                static_cast<std::size_t>(action_size_) * sizeof(float));
  }
  head_.forward(trunk_.forward(input_));
  return head_.output.data_ptr<float>();
}

void ContinuousQPass::set_output_gradient(const float* q_gradients) {
  std::memcpy(head_.output_gradient.data_ptr<float>(), q_gradients,
              static_cast<std::size_t>(batch_size_) * sizeof(float));
}

void ContinuousQPass::backward(const float* q_gradients) {
  c10::InferenceMode inference;
  set_output_gradient(q_gradients);
  const at::Tensor& features = trunk_.features();
  if (trunk_.empty()) {
    head_.write_parameter_gradients(features);
    return;
  }
  run_both(head_.multiply_adds(), [&] { head_.write_parameter_gradients(features); },
           [&] { head_.input_gradient(trunk_.features_gradient(), /*accumulate=*/false); });
  trunk_.backward();
}

void ContinuousQPass::action_gradient(const float* q_gradients, float* action_gradients) {
  c10::InferenceMode inference;
  set_output_gradient(q_gradients);
  if (trunk_.empty()) {
    head_.input_gradient(input_gradient_, /*accumulate=*/false);
  } else {
    head_.input_gradient(trunk_.features_gradient(), /*accumulate=*/false);
    trunk_.input_gradient(input_gradient_);
  }
  const std::int64_t width = observation_size_ + action_size_;
  const float* rows = input_gradient_.data_ptr<float>();
  for (std::int64_t i = 0; i < batch_size_; ++i) {
    std::memcpy(action_gradients + i * action_size_, rows + i * width + observation_size_,
                static_cast<std::size_t>(action_size_) * sizeof(float));
  }
}

}  // namespace mnrl::nn
