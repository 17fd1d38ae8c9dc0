#include "nn/actor_critic_pass.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include <ATen/ops/empty_like.h>
#include <c10/core/InferenceMode.h>

#include "nn/compute_threads.h"
#include "nn/memory_views.h"

namespace mnrl::nn {

ActorCriticPass::ActorCriticPass(const ActorCritic& model, std::int64_t batch_size,
                                 std::int64_t steps)
    : batch_size_(checked_batch_size("ActorCriticPass", batch_size)),
      observation_size_(model->options.observation_size()),
      policy_trunk_(model->policy_trunk()->layers(), model->options.activation(), batch_size),
      policy_head_(model->policy_head(), batch_size),
      value_head_(model->value_head(), batch_size) {
  if (model->recurrent() ? steps < 1 || batch_size % steps != 0 : steps != 1) {
    throw std::invalid_argument("ActorCriticPass: " + std::to_string(batch_size) +
                                " rows are not sequences of " + std::to_string(steps) +
                                " steps of this model");
  }
  if (!model->options.shared_trunk()) {
    value_trunk_.emplace(model->value_trunk()->layers(), model->options.activation(),
                         batch_size);
  }
  if (!model->encoder().is_empty()) encoder_.emplace(model->encoder(), batch_size);
  if (model->recurrent()) core_.emplace(model->core(), steps, batch_size / steps);
  if (!value_trunk_) return;
  if (core_ ? core_->shared() : encoder_.has_value()) {
    value_side_gradient_ = at::empty_like(core_ ? core_->policy_features_gradient()
                                                : encoder_->features_gradient());
  }
}

void ActorCriticPass::forward(const float* observations) {
  if (core_) throw std::logic_error("ActorCriticPass: a recurrent model needs its memory");
  c10::InferenceMode inference;
  const at::Tensor input = encoder_ ? encoder_->forward(observations)
                                    : view_floats(observations, batch_size_, observation_size_);
  trunks_forward(input, input);
}

void ActorCriticPass::forward(const float* observations, const float* episode_starts,
                              const float* state) {
  if (!core_) throw std::logic_error("ActorCriticPass: a memoryless model takes no memory");
  c10::InferenceMode inference;
  const at::Tensor input = encoder_ ? encoder_->forward(observations)
                                    : view_floats(observations, batch_size_, observation_size_);
  core_->forward(input, episode_starts, state);
  trunks_forward(core_->policy_features(), core_->value_features());
}

void ActorCriticPass::trunks_forward(const at::Tensor& policy_input,
                                     const at::Tensor& value_input) {
  if (!value_trunk_) {
    policy_head_.forward(policy_trunk_.forward(policy_input));
    value_head_.forward(policy_trunk_.features());
    return;
  }
  // Separate trunks: the actor and the critic are independent pieces (nn/compute_threads.h).
  run_both(smaller_side_multiply_adds(),
           [&] { policy_head_.forward(policy_trunk_.forward(policy_input)); },
           [&] { value_head_.forward(value_trunk_->forward(value_input)); });
}

void ActorCriticPass::backward() {
  c10::InferenceMode inference;
  at::Tensor* encoder_gradient = encoder_ ? &encoder_->features_gradient() : nullptr;
  // d loss / d the trunks' input: the core's features, or the encoder's.
  at::Tensor* policy_input_gradient =
      core_ ? &core_->policy_features_gradient() : encoder_gradient;
  if (value_trunk_) {
    // The value side's input is its own (a separate core's features) or shared with the policy
    // side's (then its gradient is added to theirs), or needs none (observations).
    at::Tensor* value_input_gradient =
        value_side_gradient_.defined() ? &value_side_gradient_
        : core_                        ? &core_->value_features_gradient()
                                       : nullptr;
    run_both(smaller_side_multiply_adds(),
             [&] { head_and_trunk_backward(policy_head_, policy_trunk_, policy_input_gradient); },
             [&] { head_and_trunk_backward(value_head_, *value_trunk_, value_input_gradient); });
    if (value_side_gradient_.defined()) policy_input_gradient->add_(value_side_gradient_);
  } else {
    // One trunk below both heads: its features' gradient is the sum of theirs.
    policy_head_.write_parameter_gradients(policy_trunk_.features());
    value_head_.write_parameter_gradients(policy_trunk_.features());
    at::Tensor* features_gradient =
        policy_trunk_.empty() ? policy_input_gradient : &policy_trunk_.features_gradient();
    if (features_gradient != nullptr) {
      policy_head_.input_gradient(*features_gradient, /*accumulate=*/false);
      value_head_.input_gradient(*features_gradient, /*accumulate=*/true);
      if (!policy_trunk_.empty()) policy_trunk_.backward(policy_input_gradient);
    }
  }
  if (core_) core_->backward(encoder_gradient);
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
