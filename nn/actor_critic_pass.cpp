#include "nn/actor_critic_pass.h"

#include <c10/core/InferenceMode.h>

#include "nn/memory_views.h"

namespace mnrl::nn {

ActorCriticPass::ActorCriticPass(const ActorCritic& model, std::int64_t batch_size)
    : batch_size_(checked_batch_size("ActorCriticPass", batch_size)),
      observation_size_(model->options.observation_size()),
      policy_trunk_(model->policy_trunk()->layers(), model->options.activation(), batch_size),
      policy_head_(model->policy_head(), batch_size),
      value_head_(model->value_head(), batch_size) {
  if (!model->options.shared_trunk()) {
    value_trunk_.emplace(model->value_trunk()->layers(), model->options.activation(),
                         batch_size);
  }
}

void ActorCriticPass::forward(const float* observations) {
  c10::InferenceMode inference;
  const at::Tensor input = view_floats(observations, batch_size_, observation_size_);
  policy_head_.forward(policy_trunk_.forward(input));
  value_head_.forward(value_trunk_ ? value_trunk_->forward(input) : policy_trunk_.features());
}

void ActorCriticPass::backward() {
  c10::InferenceMode inference;
  policy_head_.write_parameter_gradients(policy_trunk_.features());
  if (!policy_trunk_.empty()) {
    policy_head_.input_gradient(policy_trunk_.features_gradient(), /*accumulate=*/false);
  }
  if (value_trunk_) {
    value_head_.write_parameter_gradients(value_trunk_->features());
    if (!value_trunk_->empty()) {
      value_head_.input_gradient(value_trunk_->features_gradient(), /*accumulate=*/false);
      value_trunk_->backward();
    }
  } else {
    value_head_.write_parameter_gradients(policy_trunk_.features());
    if (!policy_trunk_.empty()) {
      value_head_.input_gradient(policy_trunk_.features_gradient(), /*accumulate=*/true);
    }
  }
  if (!policy_trunk_.empty()) policy_trunk_.backward();
}

}  // namespace mnrl::nn
