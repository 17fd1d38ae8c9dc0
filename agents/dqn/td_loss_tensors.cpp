#include "agents/dqn/td_loss_tensors.h"

#include <ATen/TensorOperators.h>
#include <ATen/core/Reduction.h>
#include <ATen/ops/smooth_l1_loss.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros_like.h>
#include <torch/utils.h>

namespace mnrl::agents {

at::Tensor bootstrapped_target_tensors(const at::Tensor& rewards,
                                       const at::Tensor& bootstrap_discounts,
                                       const at::Tensor& next_values) {
  return rewards + at::where(bootstrap_discounts > 0, bootstrap_discounts * next_values,
                             at::zeros_like(next_values));
}

TdLossTensors td_loss_tensors(nn::QNetworkImpl& online, nn::QNetworkImpl& target,
                              const TransitionTensors& batch, bool double_q, TdLoss loss) {
  at::Tensor targets;
  {
    torch::NoGradGuard no_grad;
    const at::Tensor next_q = target.forward(batch.next_observations);
    const at::Tensor chooser = double_q ? online.forward(batch.next_observations) : next_q;
    // argmax takes the first of equal values, as the host's argmax().
    const at::Tensor bootstrap = next_q.gather(1, chooser.argmax(1, /*keepdim=*/true)).squeeze(1);
    targets = bootstrapped_target_tensors(batch.rewards, batch.bootstrap_discounts, bootstrap);
  }
  const at::Tensor q_taken =
      online.forward(batch.observations).gather(1, batch.actions.unsqueeze(1)).squeeze(1);
  const at::Tensor error = q_taken - targets;
  // smooth_l1_loss with beta 1 is SB3's Huber loss; its slope at |error| >= 1 is sign(error).
  const at::Tensor per_row = loss == TdLoss::huber
                                 ? at::smooth_l1_loss(q_taken, targets, at::Reduction::None, 1.0)
                                 : error * error;
  TdLossTensors out;
  out.loss = (batch.weights * per_row).mean();
  out.td_errors = error.detach().abs();
  out.q_taken_sum = q_taken.detach().sum();
  return out;
}

}  // namespace mnrl::agents
