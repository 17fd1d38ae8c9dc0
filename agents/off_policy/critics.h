#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "agents/off_policy/target_critics.h"
#include "nn/continuous_q_network.h"
#include "nn/continuous_q_pass.h"

namespace mnrl::agents {

// The hand-written passes over the critics of an off-policy actor-critic (one for DDPG; two
// for TD3 and SAC, whose targets take the smaller value: clipped double Q-learning, Fujimoto et
// al. 2018) and over their target networks, for one batch size. The two critics' passes are
// independent pieces for the compute threads (nn/compute_threads.h).
class Critics {
 public:
  // One or two `critics` (trained in the agent's flat buffer) and their `targets`.
  Critics(const std::vector<nn::ContinuousQNetwork>& critics, const TargetCritics& targets,
          std::int64_t batch_size);

  std::size_t size() const { return online_.size(); }

  // min over the target critics of Q'(s, a) [batch_size], for TD targets.
  const float* min_target_q(const float* observations, const float* actions);

  // Of the critic loss scale * sum_i mean_b (Q_i(s_b, a_b) - y_b)^2: writes every critic's
  // parameter gradients, and each critic's mean squared error and mean Q into `losses` and
  // `mean_q` (one per critic).
  void backward_td_loss(const float* observations, const float* actions, const float* targets,
                        float scale, std::vector<double>& losses, std::vector<double>& mean_q);

  // Of the actor objective scale * sum_b Q(s_b, a_b), with Q the smaller of the critics
  // (`smallest`, SAC) or the first (TD3, DDPG): writes d / d action [batch_size, action_size]
  // into `action_gradients` and no parameter gradient. Returns the mean of that Q.
  double action_gradient(const float* observations, const float* actions, bool smallest,
                         float scale, float* action_gradients);

 private:
  std::vector<nn::ContinuousQNetwork> online_;
  std::int64_t batch_size_, action_size_;
  std::vector<nn::ContinuousQPass> online_passes_, target_passes_;
  std::vector<float> min_q_, q_gradients_, second_action_gradients_;
};

}  // namespace mnrl::agents
