#pragma once

#include <cstdint>

#include <ATen/core/Tensor.h>

#include "nn/continuous_q_network.h"
#include "nn/dense_pass.h"

namespace mnrl::nn {

// A ContinuousQNetwork's forward pass and its two backward passes written out by hand
// (nn/dense_pass.h), for one batch size: the parameter gradients of a critic loss, and the
// gradient with respect to the actions alone, which an actor loss follows through the critic
// (no parameter gradient is written then). Tests check both against autograd.
class ContinuousQPass {
 public:
  ContinuousQPass(const ContinuousQNetwork& network, std::int64_t batch_size);

  std::int64_t batch_size() const { return batch_size_; }
  // Of forward().
  std::int64_t multiply_adds() const;

  // Q(s, a) [batch_size] of `observations` [batch_size, observation_size] and `actions`
  // [batch_size, action_size], both row-major; valid until the next forward(). Keeps the
  // activations for one backward() or action_gradient().
  const float* forward(const float* observations, const float* actions);
  // Writes (does not add) d loss / d parameter into every parameter's .grad(), given
  // `q_gradients` = d loss / d Q [batch_size] at the last forward().
  void backward(const float* q_gradients);
  // Writes d loss / d action [batch_size, action_size] into `action_gradients`, given
  // `q_gradients`; the parameters' .grad() are left as they are.
  void action_gradient(const float* q_gradients, float* action_gradients);

 private:
  void set_output_gradient(const float* q_gradients);

  std::int64_t batch_size_, observation_size_, action_size_;
  at::Tensor input_;           // [batch, observation_size + action_size]: [s, a] rows
  at::Tensor input_gradient_;  // d loss / d input_, for action_gradient()
  TrunkPass trunk_;
  DenseLayer head_;
};

}  // namespace mnrl::nn
