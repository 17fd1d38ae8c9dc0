#pragma once

#include <cstdint>
#include <optional>

#include <ATen/core/Tensor.h>

#include "nn/actor_critic.h"
#include "nn/conv_encoder_pass.h"
#include "nn/dense_pass.h"
#include "nn/recurrent_core_pass.h"

namespace mnrl::nn {

// An ActorCritic's forward and backward pass written out by hand (nn/dense_pass.h, and
// nn/conv_encoder_pass.h for a model over images, nn/recurrent_core_pass.h for one with
// memory), for one batch size: the policy head's output (logits or Gaussian means) and the state
// values, and the gradients of every encoder, core, trunk and head parameter from d loss / d
// those outputs. The distribution's own parameter (log_std) is the loss's to differentiate.
// Tests check values and gradients against autograd.
class ActorCriticPass {
 public:
  // A recurrent model's rows are `steps` steps of batch_size / steps sequences, [step][sequence]
  // (acting: 1 step of every env); a memoryless model's steps is 1.
  ActorCriticPass(const ActorCritic& model, std::int64_t batch_size, std::int64_t steps = 1);

  std::int64_t batch_size() const { return batch_size_; }

  // Computes the outputs of `observations` [batch_size, observation_size] and keeps the
  // activations for backward(). Reads `observations` again in backward(). Memoryless models.
  void forward(const float* observations);
  // A recurrent model's: from the memory `state` [sequences, state_size] with `episode_starts`
  // [batch_size] (as ActorCritic::forward's). `state` is read before anything is written, so it
  // may be where write_state() then writes.
  void forward(const float* observations, const float* episode_starts, const float* state);
  // A recurrent model's memory after the last forward()'s last step, [sequences, state_size].
  void write_state(float* state) const { core_->write_state(state); }
  // [batch_size, action_size] and [batch_size], row-major; valid until the next forward().
  const float* policy_output() const { return policy_head_.output.data_ptr<float>(); }
  const float* values() const { return value_head_.output.data_ptr<float>(); }

  // d loss / d policy_output() and d loss / d values(), for the caller to fill before
  // backward(); same shapes.
  float* policy_output_gradient() { return policy_head_.output_gradient.data_ptr<float>(); }
  float* value_gradient() { return value_head_.output_gradient.data_ptr<float>(); }
  // Writes (does not add) d loss / d parameter into every trunk and head parameter's .grad().
  void backward();

 private:
  // The head's and the trunk's parameter gradients, and with `input_gradient` non-null,
  // d loss / d the trunk's input written there.
  static void head_and_trunk_backward(DenseLayer& head, TrunkPass& trunk,
                                      at::Tensor* input_gradient);
  // Separate trunks: the forward multiply-adds of the actor's side or the critic's, the fewer.
  std::int64_t smaller_side_multiply_adds() const;
  // The trunks and heads over the encoder's features (or the observations), or the core's.
  void trunks_forward(const at::Tensor& policy_input, const at::Tensor& value_input);

  std::int64_t batch_size_, observation_size_;
  std::optional<ConvEncoderPass> encoder_;  // models over images: shared by both sides
  std::optional<RecurrentCorePass> core_;   // models with memory, after the encoder
  // Separate trunks over one input that needs a gradient (an encoder's features, a shared
  // core's): the critic's share.
  at::Tensor value_side_gradient_;
  TrunkPass policy_trunk_;
  std::optional<TrunkPass> value_trunk_;  // none when the trunk is shared
  DenseLayer policy_head_, value_head_;
};

}  // namespace mnrl::nn
