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
}

void ActorCriticPass::forward(const float* observations) {
  c10::InferenceMode inference;
  const at::Tensor input = view_floats(observations, batch_size_, observation_size_);
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
  if (value_trunk_) {
    run_both(smaller_side_multiply_adds(),
             [&] { head_and_trunk_backward(policy_head_, policy_trunk_); },
             [&] { head_and_trunk_backward(value_head_, *value_trunk_); });
    return;
  }
  // One trunk below both heads: its features' gradient is the sum of theirs.
  policy_head_.write_parameter_gradients(policy_trunk_.features());
  value_head_.write_parameter_gradients(policy_trunk_.features());
  if (policy_trunk_.empty()) return;
  policy_head_.input_gradient(policy_trunk_.features_gradient(), /*accumulate=*/false);
  value_head_.input_gradient(policy_trunk_.features_gradient(), /*accumulate=*/true);
  policy_trunk_.backward();
}

std::int64_t ActorCriticPass::smaller_side_multiply_adds() const {
  return std::min(policy_trunk_.multiply_adds() + policy_head_.multiply_adds(),
                  value_trunk_->multiply_adds() + value_head_.multiply_adds());
}

void ActorCriticPass::head_and_trunk_backward(DenseLayer& head, TrunkPass& trunk) {
  head.write_parameter_gradients(trunk.features());
  if (trunk.empty()) return;
  head.input_gradient(trunk.features_gradient(), /*accumulate=*/false);
  trunk.backward();
}

}  // namespace mnrl::nn
