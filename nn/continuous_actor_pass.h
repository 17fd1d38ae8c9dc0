#pragma once

#include <cstdint>

#include <ATen/core/Tensor.h>

#include "nn/continuous_actor.h"
#include "nn/dense_pass.h"

namespace mnrl::nn {

// A ContinuousActor's policy and its backward pass written out by hand (nn/dense_pass.h), for
// one batch size. Two policies over the same layers:
//  - deterministic(): a = tanh(mean(s)), TD3's and DDPG's actor, and SAC's evaluation policy;
//  - sample(): SB3's SquashedDiagGaussian with a state-dependent std (SAC): u = mean(s) +
//    std(s) * noise, a = tanh(u), std = exp(clamp(log_std(s), -20, 2)), with the log-density
//    log p(a) = sum_j [log N(u_j; mean_j, std_j) - log(1 - a_j^2 + 1e-6)], reparameterized: its
//    gradient reaches the actor through u as well as through log_std.
// Tests check values and gradients against autograd.
class ContinuousActorPass {
 public:
  static constexpr float kLogStdMin = -20.0f, kLogStdMax = 2.0f;  // SB3's clamp
  static constexpr float kSquashEpsilon = 1e-6f;  // SB3's, in log(1 - a^2 + epsilon)

  ContinuousActorPass(const ContinuousActor& actor, std::int64_t batch_size);

  std::int64_t batch_size() const { return batch_size_; }
  std::int64_t action_size() const { return action_size_; }
  // Of a forward pass (both heads).
  std::int64_t multiply_adds() const;

  // tanh(mean) [batch_size, action_size] of `observations` [batch_size, observation_size];
  // valid until the next call. Keeps the activations for backward().
  const float* deterministic(const float* observations);
  // Squashed Gaussian actions [batch_size, action_size] drawn with `unit_noise` (standard
  // normals, same shape); stochastic actors only. Keeps the activations and the noise.
  const float* sample(const float* observations, const float* unit_noise);
  // The log-densities [batch_size] of the last sample()'s actions.
  const float* log_probs() const { return log_probs_.data_ptr<float>(); }

  // Writes (does not add) d loss / d parameter into every parameter's .grad(), given
  // d loss / d action [batch_size, action_size] of the last deterministic() or sample() and,
  // after sample(), d loss / d log-density [batch_size]. After deterministic(), a log-std
  // head's gradients are zero.
  void backward(const float* action_gradients, const float* log_prob_gradients = nullptr);

 private:
  void forward(const float* observations);

  std::int64_t batch_size_, observation_size_, action_size_;
  bool stochastic_;
  bool sampled_ = false;  // the last forward was sample()
  TrunkPass trunk_;
  DenseLayer mean_head_, log_std_head_;  // log_std_head_ used only when stochastic
  at::Tensor actions_;     // [batch, action]
  at::Tensor unit_noise_;  // [batch, action], of the last sample()
  at::Tensor std_;         // [batch, action], exp of the clamped log-std
  at::Tensor log_probs_;   // [batch]
};

}  // namespace mnrl::nn
