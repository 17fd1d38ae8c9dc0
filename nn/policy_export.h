#pragma once

#include <torch/nn/modules/linear.h>

#include <optional>
#include <string>
#include <vector>

#include "nn/activation.h"
#include "nn/conv_encoder.h"
#include "nn/observation_scale.h"
#include "nn/recurrent_core.h"

namespace mnrl::nn {

// A greedy policy laid out for export: observations as floats (uint8 ones multiplied by
// byte_scale, as core::as_floats does), optionally normalized, through an optional convolutional
// encoder, an optional recurrent core's policy RNN, then a trunk of linear layers each followed
// by `activation`, then a head whose output becomes the action.
struct GreedyPolicy {
  enum class Output {
    argmax,          // Discrete: index of the largest head output (logits, Q-values)
    dueling_argmax,  // Discrete: index of the largest V + A - mean(A)
    clipped,         // Box: the head output (a Gaussian's mean) clamped into [low, high]
    squashed,        // Box: low + (tanh(head) + 1) / 2 * (high - low)
  };
  float byte_scale = 1.0f;
  std::optional<ObservationScale> observation_scale;
  ConvEncoder encoder{nullptr};  // images only
  RecurrentCore memory{nullptr};  // recurrent policies only: its policy RNN is exported
  std::vector<torch::nn::Linear> trunk;
  Activation activation = Activation::tanh;
  torch::nn::Linear head{nullptr};
  torch::nn::Linear value_head{nullptr};  // dueling_argmax only
  Output output = Output::argmax;
  // Discrete outputs over return distributions (the DQN family's C51, QR-DQN, IQN): the head
  // gives `atoms` values per action (the value head `atoms`), combined per atom where dueling,
  // and an action's value is their softmax-weighted sum over `support` (C51) or their mean.
  std::int64_t atoms = 1;
  std::vector<float> support;
  // IQN: the trunk's features multiplied by `fraction_features` [K, features] (the policy's
  // K fractions embedded), then the `mixed` layers, each followed by `activation`; an action's
  // value is the mean of the heads' over the K fractions.
  at::Tensor fraction_features;
  std::vector<torch::nn::Linear> mixed;
  std::optional<double> head_clip;  // the head's output clamped to +-this first (gSDE's mean)
  std::vector<float> low, high;     // Box outputs
};

// The policy as a serialized TorchScript module (what torch::jit::Module::save writes), which
// LibTorch alone loads, in C++ (torch::jit::load) or Python (torch.jit.load). Its forward takes
// observations as the env gives them, float32 or uint8, [batch, observation_size] (images also
// [batch, C, H, W]), and returns int64 action indices [batch]
// (Discrete) or float32 actions [batch, action_size] (Box), the actions the agent's
// act_greedy() gives for the same observations. Parameters are copied.
//
// A recurrent policy's forward takes (observations, state) and returns (actions, state): the
// state [batch, S] float32 is the policy RNN's memory (per layer h, then c for an LSTM), zero
// at an episode's start (the caller zeroes a row whose episode ended); its method
// initial_state(batch_size) gives that zero state.
std::string torchscript_policy(const GreedyPolicy& policy);

}  // namespace mnrl::nn
