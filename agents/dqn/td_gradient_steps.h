#pragma once

#include <ATen/core/Tensor.h>
#include <torch/optim/optimizer.h>

#include <cstdint>
#include <optional>
#include <utility>

#include "agents/agent.h"
#include "agents/dqn/return_distribution.h"
#include "agents/dqn/td_loss_tensors.h"
#include "core/rng.h"
#include "nn/capturable_adam.h"
#include "nn/flat_parameters.h"
#include "nn/graphed_step.h"
#include "nn/q_network.h"
#include "nn/staging_pack.h"
#include "replay/replay_buffer.h"

namespace mnrl::agents {

// The DQN family's gradient steps through LibTorch's autograd, for networks off the CPU (there
// the hand-written passes are faster; the steps run on the CPU in tests): a sampled batch packed on
// the host and copied to the networks' device in one copy, into fixed tensors; then the TD loss
// (the ReturnDistribution's), backward, the gradient hook, the clip and the optimizer's step, with
// the loss and the Q-values summed on the device. Where `graphed` (decided by the agent:
// cuda_graphs_chosen()), everything after the copy runs as one CUDA graph (nn::GraphedStep), which
// needs the optimizer to be an nn::CapturableAdam and no hook. The host waits for the device only
// where it reads something back: TD errors for priorities, the sums once per update.
class TdGradientSteps {
 public:
  struct Options {
    bool double_q = false;
    double max_grad_norm = 10.0;
    std::int64_t batch_size = 32;
  };

  // `online` is trained through `parameters` and `optimizer` on the loss of `distribution`;
  // `hook` (may be empty) runs between backward and the clip. IQN's fractions and noisy nets'
  // noise (one draw per network per step) come from `noise_rng`, drawn on the host and staged
  // with the batch, so a step takes the same numbers on every device. `graphed` needs an
  // nn::CapturableAdam and no hook (std::logic_error otherwise); `required`: a step that
  // cannot be captured is an error. `distribution` and `noise_rng` outlive this.
  TdGradientSteps(nn::QNetwork online, nn::QNetwork target, nn::FlatParameters& parameters,
                  torch::optim::Optimizer& optimizer, GradientHook hook,
                  const ReturnDistribution& distribution, core::Rng& noise_rng,
                  const Options& options, bool graphed, bool required);
  // The step holds `this`.
  TdGradientSteps(const TdGradientSteps&) = delete;
  TdGradientSteps& operator=(const TdGradientSteps&) = delete;

  // One gradient step on `batch` (options.batch_size rows); writes its rows' |TD errors| to
  // `td_errors` where that is not null (a wait for the device).
  void step(const replay::TransitionBatch& batch, float* td_errors);
  // The mean loss and the mean Q-value of the taken actions over the steps since the last
  // call (a wait for the device).
  std::pair<double, double> take_means();
  // Drops the capture: after a load, the optimizer's moments are other tensors.
  void forget_capture();

 private:
  // Copies `batch`, with the fractions and noise drawn for it, into the fixed tensors on the
  // device.
  void stage(const replay::TransitionBatch& batch);
  // The device work of a step, captured where graphed.
  void device_step();
  nn::GraphedStep make_graphed_step();

  nn::QNetwork online_;
  nn::QNetwork target_;
  nn::FlatParameters& parameters_;
  torch::optim::Optimizer& optimizer_;
  GradientHook hook_;
  const ReturnDistribution& distribution_;
  core::Rng& noise_rng_;
  Options options_;
  nn::CapturableAdam* graphed_adam_;  // the optimizer, where the step is graphed; else null
  bool required_;
  std::int64_t observation_size_;
  // The batch as [observations | next observations | actions | rewards | bootstrap discounts |
  // weights | fractions | target fractions | online noise | target noise] (the last four
  // empty unless IQN, noisy).
  nn::StagingPack pack_;
  TransitionTensors staged_;  // views into the pack's device tensor (actions as floats)
  at::Tensor online_noise_, target_noise_;  // views into the pack, where noisy
  at::Tensor td_errors_;                    // [batch_size], the last step's
  at::Tensor sums_;                         // [2] doubles: the loss and the taken Q-values, summed
  std::int64_t steps_ = 0;
  std::optional<nn::GraphedStep> captured_;
};

}  // namespace mnrl::agents
