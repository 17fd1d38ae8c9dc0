#pragma once

#include <cstdint>

#include <ATen/core/Tensor.h>
#include <torch/optim/optimizer.h>

#include "agents/off_policy/off_policy_gradient_steps.h"

namespace mnrl::agents {

// SAC's gradient step (Sac::gradient_step, the hand-written CPU one) through autograd on the
// networks' device, for a GPU: the same operations in the same order, with the host's noise
// for a_pi at s and a' at s'. Statistics as Sac's, summed on the device.
class SacGradientSteps final : public OffPolicyGradientSteps {
 public:
  struct Optimizers {
    torch::optim::Optimizer& critic;
    torch::optim::Optimizer& actor;
    torch::optim::Optimizer* alpha;  // where the entropy coefficient is learned, else null
  };
  // The entropy coefficient is the networks' log alpha where they have one, else
  // `fixed_alpha`.
  SacGradientSteps(OffPolicyNetworks& networks, nn::FlatParameters& parameters,
                   TargetCritics& targets, Optimizers optimizers, double fixed_alpha,
                   double target_entropy, double tau, std::int64_t batch_size,
                   GradientRangeHook hook, bool graphed, bool required);

  // One gradient step on `batch` with standard normals `noise` and `next_noise` [batch x
  // action_size]; then the targets follow the critics where `update_targets`.
  void step(const replay::TransitionBatch& batch, const float* noise, const float* next_noise,
            bool update_targets);
  // The means of Sac's statistics over the steps since the last call (a wait for the device).
  Statistics take_means();

 private:
  // The sums of device_step(), in this order.
  enum Sum { kQ1, kQ2, kLoss1, kLoss2, kActorLoss, kAlpha, kAlphaLoss, kSums };

  void device_step(int variant) override;

  Optimizers optimizers_;
  double fixed_alpha_, target_entropy_, tau_;
  std::int64_t steps_ = 0;
};

}  // namespace mnrl::agents
