#pragma once

#include <ATen/core/Tensor.h>

#include <memory>

#include "agents/dqn/distributional_arithmetic.h"
#include "agents/dqn/q_learning.h"
#include "agents/dqn/return_distribution_options.h"
#include "agents/dqn/td_loss_tensors.h"
#include "nn/q_network.h"

namespace mnrl::agents {

// What a DQN-family agent learns of each action's return, and the TD loss that learns it: the
// expectation (DQN), a categorical distribution on a fixed support (C51), quantiles at fixed
// fractions (QR-DQN) or at sampled ones (IQN). The agent, its autograd steps and its export
// ask this for the network's shape, the Q-values the greedy policy maximizes and the loss; the
// rest (replay, targets' network, Double DQN, n-step, priorities, noisy nets) is the same for
// every kind.
class ReturnDistribution {
 public:
  virtual ~ReturnDistribution() = default;

  // `base` with the outputs this kind needs (atoms per action, IQN's fraction embedding).
  virtual nn::QNetworkOptions network(nn::QNetworkOptions base) const = 0;
  // [rows, num_actions]: the mean return of each action, whose argmax the policy takes (IQN:
  // over the policy's fixed, distorted fractions).
  virtual at::Tensor q_values(nn::QNetworkImpl& network, const at::Tensor& observations) const = 0;
  // The loss of `batch`, with next actions chosen by the Q-values of the target network, or of
  // `online` where double_q. Rows' priorities: |TD error| for DQN, each row's loss for the
  // others (as Rainbow).
  virtual TdLossTensors loss(nn::QNetworkImpl& online, nn::QNetworkImpl& target,
                             const TransitionTensors& batch, bool double_q) const = 0;
  // The hand-written path (nn::QNetworkPass on the CPU), over the networks' outputs as host
  // arrays [rows, num_actions, atoms]: whether this kind has one (IQN has not); the Q-values of
  // `outputs` [rows, num_actions]; the loss with next actions chosen by the Q-values of
  // `chooser` (the target's outputs, or the online network's at the next observations),
  // writing d loss / d online outputs and the rows' priorities.
  virtual bool by_hand() const { return true; }
  virtual void host_q_values(const float* outputs, std::int64_t rows, std::int64_t num_actions,
                             float* q) const = 0;
  virtual HostLoss host_loss(const replay::TransitionBatch& batch, const float* online,
                             const float* target, const float* chooser, std::int64_t rows,
                             std::int64_t num_actions, float* gradients,
                             float* td_errors) const = 0;

  // IQN: the fractions per row a step samples, uniform in [0, 1), for
  // TransitionTensors::fractions and ::target_fractions; none for the others.
  struct SampledFractions {
    std::int64_t online = 0, target = 0;
  };
  virtual SampledFractions sampled_fractions() const { return {}; }
};

// The kind `options.distributional` names; `expected_loss` is DQN's (dqn.loss).
std::unique_ptr<ReturnDistribution> make_return_distribution(
    const ReturnDistributionOptions& options, TdLoss expected_loss);

}  // namespace mnrl::agents
