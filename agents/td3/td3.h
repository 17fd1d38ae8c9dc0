#pragma once

#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "agents/off_policy/action_noise.h"
#include "agents/off_policy/continuous_off_policy_agent.h"
#include "agents/off_policy/critics.h"
#include "agents/off_policy/off_policy_networks.h"
#include "agents/off_policy/target_critics.h"
#include "agents/td3/td3_gradient_steps.h"
#include "agents/td3/td3_options.h"
#include "nn/flat_parameters.h"

namespace mnrl::agents {

// TD3 for Box actions, step for step as SB3's TD3.train(); with one critic and DDPG's options
// (DdpgOptions::as_td3) it is SB3's DDPG. Each gradient step moves the critics towards
// r + gamma min_i Q'_i(s', clip(mu'(s') + clip(N(0, target_policy_noise), +-target_noise_clip),
// -1, 1)); every policy_delay-th step also moves the actor up Q_1(s, mu(s)) under the updated
// critics and then every target network by Polyak averaging. Exploration adds the action
// noise to mu(s); evaluation takes mu(s). Off the CPU the gradient steps run through autograd
// (Td3GradientSteps) with the same draws from the same generator.
class Td3 final : public ContinuousOffPolicyAgent {
 public:
  // `tag` names the state in checkpoints ("td3" or "ddpg"). `networks`: one or two critics and
  // a deterministic actor, trained through `parameters` (on any device for `path` autograd;
  // on the CPU for by_hand, else std::logic_error).
  Td3(std::string tag, const Td3Options& options, ActionBounds bounds,
      std::shared_ptr<OffPolicyNetworks> networks, std::shared_ptr<nn::FlatParameters> parameters,
      std::unique_ptr<replay::Replay> replay, std::uint64_t seed, GradientPath path);

  std::vector<double> learning_rates() const override;

 protected:
  void explore(const float* observations, float* actions) override;
  // mu(s) with independent N(0, action_noise_std) noise (none without action noise).
  void sample_actions(const float* observations, std::int64_t batch, float* actions) override;
  void episode_ended(std::int64_t env) override { noise_.reset(env); }
  Statistics gradient_step(const replay::TransitionBatch& batch) override;
  Statistics device_means() override;
  void set_learning_rate(double learning_rate) override;
  void save_learner(core::StateWriter& out) const override;
  void load_learner(core::StateReader& in) override;

 private:
  // The hand-written step.
  Statistics step_by_hand(const replay::TransitionBatch& batch);
  // The autograd steps, made at the first (after set_gradient_hook() and set_cuda_graphs()).
  Td3GradientSteps& autograd_steps();
  // Into next_actions_: target_policy_noise x standard normals, the smoothing's draws.
  void draw_smoothing_noise();
  // Writes targets_ for `batch` from the target actor and critics.
  void compute_targets(const replay::TransitionBatch& batch);
  void update_targets();

  Td3Options td3_;
  std::shared_ptr<OffPolicyNetworks> networks_;
  friend struct core::StateFieldsAccess;
  template <class Fields>
  void state_fields(Fields& fields);  // in the .cpp: save_state() and load_state() use it

  std::shared_ptr<nn::FlatParameters> parameters_;
  TargetCritics target_critics_;
  nn::ContinuousActor target_actor_;
  std::unique_ptr<nn::FlatParameters> target_actor_parameters_;
  std::unique_ptr<torch::optim::Optimizer> critic_optimizer_, actor_optimizer_;
  struct ByHand {
    Critics critics;
    nn::ContinuousActorPass train_pass, target_pass;
  };
  std::unique_ptr<ByHand> by_hand_;                   // GradientPath::by_hand
  std::unique_ptr<Td3GradientSteps> autograd_steps_;  // GradientPath::autograd, once made
  ActionNoise noise_;
  core::Rng smoothing_rng_;  // target policy smoothing draws
  std::vector<float> next_actions_, targets_, action_gradients_;
  std::int64_t gradient_steps_done_ = 0;
};

}  // namespace mnrl::agents
