#pragma once

#include <cstdint>
#include <vector>

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
//    gradient reaches the actor through u as well as through log_std;
//  - sample_state_dependent(): gSDE (SB3's StateDependentNoiseDistribution with
//    learn_features, as SAC uses it): u = clip(mean(s)) + z(s) theta, theta = sigma * unit
//    weights [latent, action], sigma from the learned log-std, z the trunk's features; u is
//    Gaussian given s with variance sum_i z_i^2 sigma_ij^2 + 1e-6, under which, with the tanh
//    correction, log p(a) is taken; the gradient reaches the features through the noise and
//    the variance.
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
  // gSDE actions [batch_size, action_size] with exploration matrices `unit_weights` (standard
  // normals): one [latent, action] matrix for every row, or with `one_per_row` one per row
  // ([batch_size, latent, action]). Actors with state-dependent noise only.
  const float* sample_state_dependent(const float* observations, const float* unit_weights,
                                      bool one_per_row);
  // The log-densities [batch_size] of the last sample's actions.
  const float* log_probs() const { return log_probs_.data_ptr<float>(); }
  // Features of the trunk: the exploration matrices' first dimension.
  std::int64_t latent_size() const { return latent_size_; }

  // Writes (does not add) d loss / d parameter into every parameter's .grad(), given
  // d loss / d action [batch_size, action_size] of the last deterministic() or sample() and,
  // after sample(), d loss / d log-density [batch_size]. After deterministic(), a log-std
  // head's gradients are zero. After sample_state_dependent(), only for one matrix for every
  // row (what a gradient step draws).
  void backward(const float* action_gradients, const float* log_prob_gradients = nullptr);

 private:
  enum class Sampled { no, gaussian, state_dependent };

  // The trunk's features, and the (clipped) means into mean_.
  void forward(const float* observations);
  void gaussian_backward(const float* action_gradients, const float* log_prob_gradients);
  // Writes the means' gradient into the mean head and adds the features' gradient through the
  // noise and the variance into `features_gradient` [batch, latent]; writes the log-std's.
  void state_dependent_backward(const float* action_gradients, const float* log_prob_gradients,
                                float* features_gradient);
  // sigma [latent, action] from the log-std parameter.
  void compute_sigma();
  std::int64_t batch_size_, observation_size_, action_size_, latent_size_;
  bool stochastic_, state_dependent_;
  ContinuousActorOptions options_;
  Sampled sampled_ = Sampled::no;  // what the last forward was
  bool one_per_row_ = false;       // of the last sample_state_dependent()
  TrunkPass trunk_;
  DenseLayer mean_head_, log_std_head_;  // log_std_head_: stochastic without gSDE
  at::Tensor sde_log_std_;  // gSDE's parameter
  at::Tensor mean_;         // [batch, action]: the mean head's output, clipped with gSDE
  at::Tensor actions_;      // [batch, action]
  at::Tensor unit_noise_;   // [batch, action] of the last sample(); gSDE: the unit weights
  at::Tensor std_;          // [batch, action], exp of the clamped log-std; gSDE: [latent, action] sigma
  at::Tensor noise_;        // gSDE: [batch, action], z theta
  at::Tensor variance_;     // gSDE: [batch, action]
  at::Tensor log_probs_;    // [batch]
  std::vector<float> sde_features_gradient_;  // gSDE: [batch, latent], through noise and variance
};

}  // namespace mnrl::nn
