#pragma once

#include "agents/dqn/distributional_arithmetic.h"
#include "replay/replay_buffer.h"

namespace mnrl::agents {

// Gradient steps a DQN-family agent (Dqn) hands over to networks held elsewhere (the stages of
// a pipeline across ranks, topologies/pipeline/): the agent still samples, acts and updates
// its target on schedule, and its own online network is the acting copy, brought up to date at
// the end of each update.
class ExternalTdSteps {
 public:
  virtual ~ExternalTdSteps() = default;
  virtual void set_learning_rate(double learning_rate) = 0;
  // One gradient step of the TD loss on `batch` (next actions chosen by the online network
  // where `double_q`, else by the target), clipped to `max_grad_norm`, through noisy nets'
  // `noise` (the online network's [noise_size()], then the target's; null without noisy
  // layers), as a step in one process takes it; writes each row's
  // priority (|TD error|, or its loss for a return distribution) to `td_errors` where not
  // null. The loss (the importance-weighted mean over rows) and the sum of the taken actions'
  // Q-values.
  virtual HostLoss step(const replay::TransitionBatch& batch, bool double_q, double max_grad_norm,
                        const float* noise, float* td_errors) = 0;
  // The acting network's parameters become the steps' latest.
  virtual void synchronize() = 0;
  // The steps' target network takes the online one's parameters (Polyak with tau < 1), as the
  // agent's has just done.
  virtual void update_target(double tau) = 0;
};

}  // namespace mnrl::agents
