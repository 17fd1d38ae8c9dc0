#pragma once

#include <cstdint>
#include <vector>

#include <torch/arg.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include "nn/mlp.h"

namespace mnrl::nn {

struct ContinuousActorOptions {
  ContinuousActorOptions(std::int64_t observation_size, std::int64_t action_size)
      : observation_size_(observation_size), action_size_(action_size) {}

  TORCH_ARG(std::int64_t, observation_size);
  TORCH_ARG(std::int64_t, action_size);
  TORCH_ARG(std::vector<std::int64_t>, hidden_sizes) = std::vector<std::int64_t>{256, 256};
  TORCH_ARG(Activation, activation) = Activation::relu;  // SB3's SAC/TD3 default
  // A second head for the log-std of a squashed Gaussian (SAC); without it the policy is
  // deterministic (TD3, DDPG).
  TORCH_ARG(bool, stochastic) = false;
  // Stochastic only: generalized state-dependent exploration (gSDE) as SB3's SAC Actor with
  // use_sde: the log-std is a learned parameter [latent, action] (one per latent feature
  // without full_std) instead of a head, and the mean is clipped to +-clip_mean.
  TORCH_ARG(bool, state_dependent_noise) = false;
  TORCH_ARG(bool, full_std) = true;
  TORCH_ARG(bool, use_expln) = false;  // std = exp below 0 and log1p + 1 above
  TORCH_ARG(double, log_std_init) = -3.0;
  TORCH_ARG(double, clip_mean) = 2.0;
  // The autograd passes (forward(), heads()) in bfloat16 under CUDA autocast
  // (train.precision: bf16), with float32 outputs.
  TORCH_ARG(bool, bf16_autocast) = false;
};

// The actor of an off-policy continuous-control agent, over an MLP trunk: a mean head whose
// tanh is the action in [-1, 1] (the env's bounds are mapped onto it outside), and with
// `stochastic` a log-std head, state-dependent as in SB3's SAC Actor (or gSDE's log-std
// parameter). Layers keep LibTorch's default initialization, as SB3 does.
// ContinuousActorPass computes the policy itself.
class ContinuousActorImpl : public torch::nn::Module {
 public:
  explicit ContinuousActorImpl(ContinuousActorOptions options);

  // The pre-tanh mean [batch, action_size], through autograd.
  at::Tensor forward(const at::Tensor& observations);
  struct Sample {
    at::Tensor actions;    // [batch, action_size] in [-1, 1]
    at::Tensor log_probs;  // [batch]
  };
  // A reparameterized sample of the squashed Gaussian through autograd, as
  // ContinuousActorPass::sample() computes it by hand (stochastic only, without
  // state-dependent noise): `unit_noise` [batch, action_size] standard normals.
  Sample sample(const at::Tensor& observations, const at::Tensor& unit_noise);

  const Mlp& trunk() const { return trunk_; }
  const torch::nn::Linear& mean_head() const { return mean_head_; }
  const torch::nn::Linear& log_std_head() const { return log_std_head_; }
  // gSDE's learned log-std, [latent, action] or [latent, 1]; undefined otherwise.
  const at::Tensor& sde_log_std() const { return sde_log_std_; }

  ContinuousActorOptions options;

 private:
  Mlp trunk_{nullptr};
  torch::nn::Linear mean_head_{nullptr};
  torch::nn::Linear log_std_head_{nullptr};  // stochastic, without state-dependent noise
  at::Tensor sde_log_std_;                   // stochastic, with state-dependent noise
};
TORCH_MODULE(ContinuousActor);

}  // namespace mnrl::nn
