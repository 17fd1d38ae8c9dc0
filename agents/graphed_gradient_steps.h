#pragma once

#include <map>
#include <optional>
#include <tuple>

#include <ATen/core/Tensor.h>

#include "agents/actor_critic_loss.h"
#include "agents/loss_sums.h"
#include "agents/rollout_batch.h"
#include "nn/actor_critic.h"
#include "nn/capturable_adam.h"
#include "nn/flat_parameters.h"
#include "nn/graphed_step.h"

namespace mnrl::agents {

// An actor-critic agent's gradient steps on a GPU as CUDA graphs (train.cuda_graphs): the
// finished rollout staged into fixed device tensors once per update, a minibatch's rows copied
// into a fixed index on the device (from the epoch's permutation, copied there once), and for
// each shape of step one nn::GraphedStep of: gradients zeroed, the loss, backward, the clip,
// CapturableAdam's update, and the loss parts added to sums on the device. The host prepares
// Adam's scalars and replays; it waits for the device once per epoch (the permutation's copy)
// and once per update (LossSums::means). The eager autograd step's operations in their order.
class GraphedGradientSteps {
 public:
  // `required` (train.cuda_graphs: on): a step that cannot be captured is an error, not run
  // eagerly.
  GraphedGradientSteps(nn::ActorCritic model, nn::FlatParameters& parameters,
                       nn::CapturableAdam& adam, bool required);
  // The captured steps hold `this`.
  GraphedGradientSteps(const GraphedGradientSteps&) = delete;
  GraphedGradientSteps& operator=(const GraphedGradientSteps&) = delete;

  // Copies a finished rollout into the staged tensors, zeroes the loss sums, and returns the
  // staged batch (the steps read it).
  const RolloutBatch& stage(const RolloutBatch& rollout);
  // One gradient step on `batch`'s rows of `rollout`, which must be the staged one.
  void step(const RolloutBatch& rollout, const Minibatch& batch,
            const ActorCriticLossOptions& options, double max_grad_norm, LossSums& sums);
  // Drops the captures: after a load, the optimizer's moments are other tensors.
  void forget_captures() { steps_.clear(); }

 private:
  // What a capture holds fixed besides its rows: the loss options and the clip. A schedule
  // that changes them (PPO's clip_range_schedule) recaptures the step once per update.
  using Constants =
      std::tuple<std::optional<double>, std::optional<double>, double, double, bool, double>;
  struct Captured {
    Constants constants;
    nn::GraphedStep step;
  };

  // The fixed index of `count` rows, filled with this minibatch's.
  const at::Tensor& rows_of(const Minibatch& batch);
  // `warmed_up`: an earlier step of this shape ran, so the capture needs no eager calls first.
  nn::GraphedStep make_step(std::int64_t count, const ActorCriticLossOptions& options,
                            double max_grad_norm, bool warmed_up);

  nn::ActorCritic model_;
  nn::FlatParameters& parameters_;
  nn::CapturableAdam& adam_;
  bool required_;
  RolloutBatch staged_;
  at::Tensor loss_sums_;   // [LossSums::kParts] doubles on the device
  at::Tensor host_order_;  // the permutation the device copy below is of
  at::Tensor order_;
  std::map<std::int64_t, at::Tensor> rows_;  // fixed index tensors by row count
  std::map<std::int64_t, Captured> steps_;   // by row count (0: the whole rollout)
};

}  // namespace mnrl::agents
