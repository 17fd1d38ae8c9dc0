#include "agents/dqn/td_loss_tensors.h"

#include <ATen/TensorOperators.h>
#include <ATen/core/Reduction.h>
#include <ATen/ops/smooth_l1_loss.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros_like.h>
#include <torch/utils.h>

namespace mnrl::agents {

TdLossTensors td_loss_tensors(nn::QNetworkImpl& online, nn::QNetworkImpl& target,
                              const TransitionTensors& batch, bool double_q, TdLoss loss) {
  at::Tensor targets;
  {
    torch::NoGradGuard no_grad;
    const at::Tensor next_q = target.forward(batch.next_observations);
    const at::Tensor chooser = double_q ? online.forward(batch.next_observations) : next_q;
    // argmax takes the first of equal values, as the host's argmax().
    const at::Tensor bootstrap = next_q.gather(1, chooser.argmax(1, /*keepdim=*/true)).squeeze(1);
    // Terminated rows (discount 0) take the reward alone, as on the host, even where the
    // bootstrap is not finite.
    targets =
        batch.rewards + at::where(batch.bootstrap_discounts > 0,
                                  batch.bootstrap_discounts * bootstrap, at::zeros_like(bootstrap));
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
