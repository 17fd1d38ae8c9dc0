#include "nn/actor_critic_pass.h"

#include <algorithm>

#include <c10/core/InferenceMode.h>

#include "nn/compute_threads.h"
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
  if (!model->encoder().is_empty()) {
    encoder_.emplace(model->encoder(), batch_size);
    if (value_trunk_) value_side_gradient_ = at::empty_like(encoder_->features_gradient());
  }
}

void ActorCriticPass::forward(const float* observations) {
  c10::InferenceMode inference;
  const at::Tensor input = encoder_ ? encoder_->forward(observations)
                                    : view_floats(observations, batch_size_, observation_size_);
  if (!value_trunk_) {
    policy_head_.forward(policy_trunk_.forward(input));
    value_head_.forward(policy_trunk_.features());
    return;
  }
  // Separate trunks: the actor and the critic are independent pieces (nn/compute_threads.h).
  run_both(smaller_side_multiply_adds(), [&] { policy_head_.forward(policy_trunk_.forward(input)); },
           [&] { value_head_.forward(value_trunk_->forward(input)); });
}

void ActorCriticPass::backward() {
  c10::InferenceMode inference;
  at::Tensor* encoder_gradient = encoder_ ? &encoder_->features_gradient() : nullptr;
  if (value_trunk_) {
    at::Tensor* value_side = encoder_ ? &value_side_gradient_ : nullptr;
    run_both(smaller_side_multiply_adds(),
             [&] { head_and_trunk_backward(policy_head_, policy_trunk_, encoder_gradient); },
             [&] { head_and_trunk_backward(value_head_, *value_trunk_, value_side); });
    // The encoder's features feed both sides: their gradient is the sum of both.
    if (encoder_) {
      encoder_gradient->add_(value_side_gradient_);
      encoder_->backward();
    }
    return;
  }
  // One trunk below both heads: its features' gradient is the sum of theirs.
  policy_head_.write_parameter_gradients(policy_trunk_.features());
  value_head_.write_parameter_gradients(policy_trunk_.features());
  at::Tensor* features_gradient =
      policy_trunk_.empty() ? encoder_gradient : &policy_trunk_.features_gradient();
  if (features_gradient == nullptr) return;
  policy_head_.input_gradient(*features_gradient, /*accumulate=*/false);
  value_head_.input_gradient(*features_gradient, /*accumulate=*/true);
  if (!policy_trunk_.empty()) policy_trunk_.backward(encoder_gradient);
  if (encoder_) encoder_->backward();
}

std::int64_t ActorCriticPass::smaller_side_multiply_adds() const {
  return std::min(policy_trunk_.multiply_adds() + policy_head_.multiply_adds(),
                  value_trunk_->multiply_adds() + value_head_.multiply_adds());
}

void ActorCriticPass::head_and_trunk_backward(DenseLayer& head, TrunkPass& trunk,
                                              at::Tensor* input_gradient) {
  head.write_parameter_gradients(trunk.features());
  at::Tensor* features_gradient = trunk.empty() ? input_gradient : &trunk.features_gradient();
  if (features_gradient == nullptr) return;
  head.input_gradient(*features_gradient, /*accumulate=*/false);
  if (!trunk.empty()) trunk.backward(input_gradient);
}

}  // namespace mnrl::nn
