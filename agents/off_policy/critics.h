#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>

#include "nn/continuous_q_network.h"
#include "nn/continuous_q_pass.h"
#include "nn/flat_parameters.h"

namespace mnrl::agents {

// The critics of an off-policy actor-critic (one for DDPG; two for TD3 and SAC, whose targets
// take the smaller value: clipped double Q-learning, Fujimoto et al. 2018), their target
// networks, and hand-written passes over both for one batch size. The two critics' passes are
// independent pieces for the compute threads (nn/compute_threads.h).
class Critics {
 public:
  // One or two `critics`. `values`: the critics' parameters in the agent's flat buffer, in their order (the targets
  // follow them by Polyak averaging). The targets start as copies.
  Critics(const std::vector<nn::ContinuousQNetwork>& critics, at::Tensor values,
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

  // target = (1 - tau) target + tau online.
  void update_targets(double tau);

  // The target networks' parameters, for checkpoints.
  const at::Tensor& target_values() const { return target_parameters_->values(); }

 private:
  std::vector<nn::ContinuousQNetwork> online_, target_;
  std::shared_ptr<torch::nn::Module> target_module_;
  std::unique_ptr<nn::FlatParameters> target_parameters_;
  at::Tensor values_;
  std::int64_t batch_size_, action_size_;
  std::vector<nn::ContinuousQPass> online_passes_, target_passes_;
  std::vector<float> min_q_, q_gradients_, chosen_gradients_, second_action_gradients_;
};

}  // namespace mnrl::agents
