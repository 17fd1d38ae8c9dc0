#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "nn/recurrent_q_network.h"
#include "nn/recurrent_q_network_pass.h"
#include "replay/sequence_replay.h"

namespace mnrl::agents {

struct R2d2LossOptions {
  std::int64_t burn_in = 0;
  double gamma = 0.99;
  int n_step = 1;
  bool double_q = true;
  bool huber = true;  // else squared error
  double priority_eta = 0.9;
  bool value_rescaling = false;  // the network learns h(Q) (see rescaled_value)
};

// R2D2's value rescaling (Pohlen et al. 2018): h(x) = sign(x) (sqrt(|x| + 1) - 1) + eps x with
// eps = 1e-3, and its inverse. With it the network's outputs are h(Q): a target is
// h(n-step rewards + discount h^-1(bootstrap output)), so that returns of any scale train
// alike; h is increasing, so greedy actions are the same.
double rescaled_value(double x);
double unrescaled_value(double h);

// A batch of sequences as tensors on the networks' device.
struct SequenceTensors {
  at::Tensor observations;  // [(length + 1) * batch, observation_size], [time][sequence]
  at::Tensor states;        // [batch, state_size]
  at::Tensor weights;       // [batch] importance weights
};

struct R2d2Loss {
  at::Tensor loss;                // to differentiate (r2d2_loss() only)
  std::vector<float> priorities;  // per sequence: eta max |delta| + (1 - eta) mean |delta|
  double td_loss = 0.0;           // the loss's value
  double q_values = 0.0;          // mean Q of the trained steps' actions
};

// R2D2's loss on sampled sequences: both networks replay each sequence from the memory stored
// with it. The online network's steps before `burn_in` only refresh its memory: no gradient
// flows through them, except in sequences that begin an episode (their memory is exact, zero,
// and every step is trained). The target of a trained step t is the n-step return within the
// sequence, bootstrapped (unless the episode terminated first) from the target network's
// value, at step j = min(t + n, steps), of the online network's greedy action there (Double
// DQN) or its own (both through value rescaling, where on). The loss is the importance-weighted
// mean over trained steps of the Huber (or squared) TD error.
//
// Through autograd: the definition the hand-written r2d2_loss_by_hand() is tested against.
R2d2Loss r2d2_loss(nn::RecurrentQNetworkImpl& online, nn::RecurrentQNetworkImpl& target,
                   const replay::SequenceBatch& batch, const SequenceTensors& tensors,
                   const R2d2LossOptions& options);

// The same loss by hand, over passes of the online and the target network of length + 1 steps
// of batch.size sequences: runs both forward and returns the loss's value (its `loss` tensor
// undefined), the priorities and the mean Q; with `differentiate`, also writes (does not add)
// d loss / d every online parameter into its .grad().
R2d2Loss r2d2_loss_by_hand(nn::RecurrentQNetworkPass& online, nn::RecurrentQNetworkPass& target,
                           const replay::SequenceBatch& batch, const R2d2LossOptions& options,
                           bool differentiate);

}  // namespace mnrl::agents
