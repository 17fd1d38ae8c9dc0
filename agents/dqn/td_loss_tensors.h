#pragma once

#include <ATen/core/Tensor.h>

#include "agents/dqn/q_learning.h"
#include "nn/q_network.h"

namespace mnrl::agents {

// A DQN batch as tensors on the networks' device; [rows] each unless said.
struct TransitionTensors {
  at::Tensor observations;         // [rows, observation_size]
  at::Tensor actions;              // int64
  at::Tensor rewards;              // n-step returns
  at::Tensor bootstrap_discounts;  // gamma^n, or 0 where the episode terminated
  at::Tensor next_observations;    // [rows, observation_size]
  at::Tensor weights;              // importance weights (1 for uniform replay)
  // IQN only: fractions sampled per row for the online and the target quantiles, [rows, N]
  // and [rows, N'].
  at::Tensor fractions, target_fractions;
};

struct TdLossTensors {
  at::Tensor loss;  // the importance-weighted mean, with autograd history through online
  // [rows], detached: the priorities, |Q(s_i, a_i) - y_i| (distributional: each row's loss)
  at::Tensor td_errors;
  at::Tensor q_taken_sum;  // the sum of Q(s_i, a_i), detached
};

// rewards + bootstrap_discounts * next_values [rows], where terminated rows (discount 0) take
// the reward alone, as on the host, even where next_values are not finite.
at::Tensor bootstrapped_target_tensors(const at::Tensor& rewards,
                                       const at::Tensor& bootstrap_discounts,
                                       const at::Tensor& next_values);

// bootstrapped_targets() and td_loss() (q_learning.h) as tensor ops on the device: the same
// targets (Double DQN's where `double_q`), loss and gradient with respect to Q, to float
// rounding, with no host work and no wait: the loss of the DQN family's autograd steps, which
// a CUDA graph can capture.
TdLossTensors td_loss_tensors(nn::QNetworkImpl& online, nn::QNetworkImpl& target,
                              const TransitionTensors& batch, bool double_q, TdLoss loss);

}  // namespace mnrl::agents
