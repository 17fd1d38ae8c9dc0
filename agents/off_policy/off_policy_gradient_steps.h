#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <torch/optim/optimizer.h>

#include "agents/agent.h"
#include "agents/off_policy/off_policy_networks.h"
#include "agents/off_policy/target_critics.h"
#include "nn/flat_parameters.h"
#include "nn/graphed_step.h"
#include "nn/staging_pack.h"
#include "replay/replay_buffer.h"

namespace mnrl::agents {

// What SAC's and TD3's gradient steps through LibTorch's autograd share, for networks off the
// CPU (there the hand-written passes are faster; the steps run on the CPU in tests):
// - a sampled batch and the noise the host drew for it (so that a seed acts and learns alike on
//   every device, and the RNGs stay in checkpoints) staged by one copy into fixed tensors;
// - each kind of step (`variant`: TD3's critic step alone or with the actor's) as device work,
//   run eagerly or, where graphed, as one CUDA graph per variant (nn::GraphedStep), whose
//   optimizers must be nn::CapturableAdam (prepare_step() on the host, update() in the graph);
// - statistics summed on the device, read once per update: the host waits for the device only
//   there (and for the batch's copy).
class OffPolicyGradientSteps {
 public:
  // The staged batch, views into the staging pack's device tensor.
  struct Staged {
    at::Tensor observations, next_observations;  // [batch, observation_size]
    at::Tensor actions;                          // [batch, action_size] in [-1, 1]
    at::Tensor rewards, bootstrap_discounts;     // [batch]; gamma^n, or 0 where terminated
    at::Tensor noise, next_noise;                // [batch, action_size] drawn on the host
  };

  virtual ~OffPolicyGradientSteps() = default;
  // The steps hold `this`.
  OffPolicyGradientSteps(const OffPolicyGradientSteps&) = delete;
  OffPolicyGradientSteps& operator=(const OffPolicyGradientSteps&) = delete;

  // The statistics summed since the last call (a wait for the device), then zeroed.
  std::vector<double> take_sums();
  // Drops the captures: after a load, the optimizers' moments are other tensors.
  void forget_captures();

 protected:
  // `networks` are trained through `parameters` (their flat buffer); `targets` follow their
  // critics. `statistics`: how many sums device_step() adds to. `hook` (may be empty) averages
  // a range of the flat gradients across ranks; `graphed` needs no hook (std::logic_error
  // otherwise); `required`: a step that cannot be captured is an error. `name` names the steps
  // in a failed capture's message.
  OffPolicyGradientSteps(OffPolicyNetworks& networks, nn::FlatParameters& parameters,
                         TargetCritics& targets, std::int64_t batch_size, std::size_t statistics,
                         GradientRangeHook hook, bool graphed, bool required, std::string name);

  struct CriticLosses {
    at::Tensor loss;    // the sum of the critics' mean squared errors, through autograd
    at::Tensor errors;  // [critics] each one's mean squared error, detached
    at::Tensor mean_q;  // [critics] each one's mean Q(s, a), detached
  };
  // Of the critics at the staged (s, a) against `targets` [batch].
  CriticLosses critic_losses(const at::Tensor& targets);
  // min over the first `count` of `critics` of Q(s, a) [batch] (the first on ties).
  static at::Tensor min_q(const std::vector<nn::ContinuousQNetwork>& critics, std::size_t count,
                          const at::Tensor& observations, const at::Tensor& actions);

  // Stages `batch` with `noise` and `next_noise` (batch x action_size floats each, or null
  // where the step reads none), then runs `variant` (0 or 1), whose optimizer steps are
  // `stepping`: as its graph where graphed (prepared here), else eagerly.
  void run(const replay::TransitionBatch& batch, const float* noise, const float* next_noise,
           int variant, std::initializer_list<torch::optim::Optimizer*> stepping);
  // The device work of `variant`: read staged(), add to sums(), step the optimizers through
  // optimizer_step().
  virtual void device_step(int variant) = 0;
  // The optimizer's step: its update() where graphed (prepared by run()), else step().
  void optimizer_step(torch::optim::Optimizer& optimizer);
  // Averages `range` of the flat gradients across ranks (where there is a hook).
  void average(OffPolicyNetworks::Range range);

  const Staged& staged() const { return staged_; }
  at::Tensor& sums() { return sums_; }  // [statistics] doubles on the device

  OffPolicyNetworks& networks_;
  nn::FlatParameters& parameters_;
  TargetCritics& targets_;

 private:
  std::int64_t batch_size_, action_size_;
  GradientRangeHook hook_;
  bool graphed_, required_;
  std::string name_;
  c10::Device device_;
  nn::StagingPack pack_;  // [observations | next | actions | rewards | bootstrap | noise | next]
  Staged staged_;
  at::Tensor sums_;
  std::array<std::optional<nn::GraphedStep>, 2> captured_;  // by variant
};

}  // namespace mnrl::agents
