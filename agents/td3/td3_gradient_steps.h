#pragma once

#include <cstdint>

#include <torch/optim/optimizer.h>

#include "agents/off_policy/off_policy_gradient_steps.h"
#include "nn/continuous_actor.h"

namespace mnrl::agents {

// TD3's (and DDPG's) gradient step (Td3::gradient_step, the hand-written CPU one) through
// autograd on the networks' device, for a GPU: the same operations in the same order, with the
// host's target policy smoothing noise. A critic step alone, or (every policy_delay-th) with
// the actor's step and the targets' update: one CUDA graph each. Statistics as Td3's, summed
// on the device.
class Td3GradientSteps final : public OffPolicyGradientSteps {
 public:
  struct Options {
    double tau = 0.005;
    bool smoothing = true;  // target policy smoothing (target_policy_noise > 0)
    double target_noise_clip = 0.5;
    std::int64_t batch_size = 256;
  };
  // `target_actor` (whose flat buffer is `target_actor_values`) follows the actor.
  Td3GradientSteps(OffPolicyNetworks& networks, nn::FlatParameters& parameters,
                   TargetCritics& targets, nn::ContinuousActor target_actor,
                   at::Tensor target_actor_values, torch::optim::Optimizer& critic_optimizer,
                   torch::optim::Optimizer& actor_optimizer, const Options& options,
                   GradientRangeHook hook, bool graphed, bool required);

  // One gradient step on `batch`: the critics' with `smoothing_noise` (target_policy_noise x
  // standard normals [batch x action_size], null without smoothing), and where `with_actor` the
  // actor's and the targets' after it.
  void step(const replay::TransitionBatch& batch, const float* smoothing_noise, bool with_actor);
  // The means of Td3's statistics over the steps since the last call (a wait for the device).
  Statistics take_means();

 private:
  // The sums of device_step(): the critics' mean Q [0, 2), their losses [2, 4), the actor's.
  static constexpr std::int64_t kActorLoss = 4, kSums = 5;

  void device_step(int variant) override;

  nn::ContinuousActor target_actor_;
  at::Tensor target_actor_values_;
  torch::optim::Optimizer& critic_optimizer_;
  torch::optim::Optimizer& actor_optimizer_;
  Options options_;
  std::int64_t steps_ = 0, actor_steps_ = 0;
};

}  // namespace mnrl::agents
