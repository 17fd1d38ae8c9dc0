#pragma once

#include <ATen/core/Tensor.h>
#include <torch/arg.h>

#include <cstdint>
#include <memory>

#include "core/state_stream.h"
#include "nn/action_distribution.h"

namespace mnrl::nn {

struct StateDependentNoiseOptions {
  // One learned log-std per (latent feature, action) pair, or one per latent feature shared by
  // every action.
  TORCH_ARG(bool, full_std) = true;
  // std = exp(log_std) below 0 and log1p(log_std) + 1 above (grows slowly: keeps the std from
  // exploding), instead of exp everywhere.
  TORCH_ARG(bool, use_expln) = false;
  // Let the log-prob's gradient reach the policy features through the std; off, the features
  // are detached there and learn through the mean only.
  TORCH_ARG(bool, learn_features) = false;
  // tanh-squash the actions into (-1, 1), with the log-prob correction.
  TORCH_ARG(bool, squash) = false;
};

// Generalized state-dependent exploration (gSDE; Raffin et al. 2022, "Smooth Exploration for
// Robotic Reinforcement Learning"), as Stable-Baselines3's StateDependentNoiseDistribution.
//
// The policy's last hidden features z(s) ([batch, latent]) drive the noise: exploration
// weights theta ([latent, action], theta_ij ~ N(0, sigma_ij^2), sigma = std(log_std)) are drawn
// now and then (resample()), and an action is a = mean(s) + z(s) theta, so the same state gives
// the same noise until the next draw: smooth exploration, no per-step jitter. Given s, a is
// Gaussian with per-action variance sum_i z_i^2 sigma_ij^2 (+ 1e-6, SB3's epsilon): that is the
// distribution log_prob and entropy are taken under.
//
// The draws are kept as unit normals eps, with theta = sigma * eps formed at use: the noise
// follows the current log_std (and its gradient reaches log_std, as SB3's rsample()), and the
// state a checkpoint keeps is eps alone. Draws come from torch's default generator.
class StateDependentNoise {
 public:
  static constexpr double kEpsilon = 1e-6;  // added to the variance, as SB3

  StateDependentNoise(std::int64_t latent_size, std::int64_t action_size,
                      StateDependentNoiseOptions options);

  // The learned parameter's initial value: [latent, action] (full_std) or [latent, 1].
  at::Tensor initial_log_std(double log_std_init) const;
  // sigma, [latent, action], from the learned log_std (broadcast when not full_std).
  at::Tensor weight_std(const at::Tensor& log_std) const;

  // Draws `count` new exploration matrices: one per env that acts with them.
  void resample(std::int64_t count);
  std::int64_t count() const { return unit_weights_.defined() ? unit_weights_.size(0) : 0; }

  // z(s) theta, [batch, action], with the current matrices (one per row, or one for every
  // row: batch must equal count(), or count() must be 1). Differentiable w.r.t. log_std, and
  // w.r.t. latent with learn_features: a learner that reparameterizes actions (SAC, to
  // come) takes mean + noise.
  at::Tensor noise(const at::Tensor& latent, const at::Tensor& log_std) const;

  // The action distribution at states with features `latent` ([batch, latent]) and means `mean`
  // ([batch, action]). With `exploration_noise`, sample() returns mean + noise(latent) (then
  // tanh when squashed); without it, sample() draws fresh noise from the same distribution.
  std::unique_ptr<ActionDistribution> distribution(const at::Tensor& mean,
                                                   const at::Tensor& log_std,
                                                   const at::Tensor& latent,
                                                   bool exploration_noise) const;

  // The exploration matrices for checkpoints. load_state() takes a state of `count` matrices
  // (that the agent acts with) or none (saved before the first draw).
  void save_state(core::StateWriter& out) const;
  void load_state(core::StateReader& in, std::int64_t count);
  // The same as a field of a saved state (core/state_fields.h) that loads `count` matrices.
  struct Field {
    StateDependentNoise& noise;
    std::int64_t count;
    void save_state(core::StateWriter& out) const { noise.save_state(out); }
    void load_state(core::StateReader& in) { noise.load_state(in, count); }
  };
  Field as_field(std::int64_t count) { return {*this, count}; }

  const StateDependentNoiseOptions& options() const { return options_; }

 private:
  // The latent, detached unless learn_features.
  at::Tensor features_of(const at::Tensor& latent) const;
  // features theta, with theta = sigma * the current unit draws.
  at::Tensor noise_of(const at::Tensor& features, const at::Tensor& sigma) const;

  std::int64_t latent_size_, action_size_;
  StateDependentNoiseOptions options_;
  at::Tensor unit_weights_;  // [count, latent, action], N(0, 1); undefined before a draw
};

}  // namespace mnrl::nn
