#pragma once

#include <memory>
#include <vector>

#include <torch/optim/optimizer.h>

#include "agents/agent.h"
#include "agents/ppo/ppo_options.h"
#include "nn/actor_critic.h"
#include "nn/flat_parameters.h"
#include "replay/rollout_buffer.h"

namespace mnrl::agents {

// Proximal Policy Optimization for discrete actions. Collaborators come from the caller (the
// experiment builds them from the config): the actor-critic, its flattened parameters, an
// optimizer over flat_parameters.values(), and a rollout buffer sized n_steps x num_envs.
class Ppo final : public Agent {
 public:
  Ppo(PpoOptions options, nn::ActorCritic model, std::shared_ptr<nn::FlatParameters> parameters,
      std::unique_ptr<torch::optim::Optimizer> optimizer, replay::RolloutBuffer buffer);

  void act(const float* observations, const ActionsOut& out) override;
  void observe(const StepOutcome& outcome) override;
  bool update_ready() const override { return buffer_.full(); }
  Statistics update(const TrainingProgress& progress) override;
  void act_greedy(const float* observations, std::int64_t batch, const ActionsOut& out) override;

  nn::ActorCritic& model() { return model_; }

 private:
  PpoOptions options_;
  nn::ActorCritic model_;
  std::shared_ptr<nn::FlatParameters> parameters_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  replay::RolloutBuffer buffer_;
  std::vector<float> next_observations_;  // after the last observed step, for bootstrapping
};

}  // namespace mnrl::agents
