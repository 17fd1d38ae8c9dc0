#pragma once

#include <cstdint>

#include "agents/actor_critic_agent.h"
#include "agents/impala/impala_options.h"

namespace mnrl::agents {

// IMPALA's actor-critic (Espeholt et al. 2018). As an actor it acts into its rollout of
// unroll_length steps and hands it over whole (pack_trajectory); as the learner its rollout
// holds batch_trajectories actors' trajectories side by side (unpack_trajectory) and update()
// takes one gradient step on them: the policy gradient weighted by V-trace's
// min(pg_rho_bar, rho_t) (r_t + gamma v_{t+1} - V(x_t)), the value regressed on the V-trace
// targets v_t, and the entropy bonus. In one process it is both, learning from its own rollouts
// (then V-trace is the lambda = 1 returns). A recurrent model's trajectories carry the memory
// each env's sequence started from, and the learner replays the sequences from it (as
// IMPALA's and R2D2's learners do).
class Impala final : public ActorCriticAgent {
 public:
  Impala(ImpalaOptions options, nn::ActorCritic model,
         std::shared_ptr<nn::FlatParameters> parameters,
         std::unique_ptr<torch::optim::Optimizer> optimizer, replay::RolloutBuffer buffer,
         ActionBounds bounds);

  // One gradient step on the full rollout, which it then clears.
  Statistics update(const TrainingProgress& progress) override;
  // ActorCriticAgent's state after the rollout's env count. A state whose rollout is another
  // size (a learner's batch of trajectories read by a one-actor agent for evaluation, or the
  // reverse on a resume) gives its parameters and optimizer; its rollout is dropped (a
  // learner's is consumed already).
  void save_state(core::StateWriter& out) const override;
  void load_state(core::StateReader& in) override;

  // Floats in a trajectory of `envs` envs: the rollout's rows, then the observations after
  // its last step, then a recurrent model's memory (RolloutMemory::pack).
  std::int64_t trajectory_floats(std::int64_t envs);
  // Writes the full rollout and the observations after it to `out` (trajectory_floats(
  // num_envs) floats), and clears the rollout.
  void pack_trajectory(float* out);
  // Reads a trajectory of `envs` envs into envs [first_env, first_env + envs) of the rollout.
  void unpack_trajectory(const float* in, std::int64_t envs, std::int64_t first_env);
  // The policy's parameters, one flat tensor (what the learner sends its actors).
  const at::Tensor& parameters() { return flat_parameters().values(); }

 private:
  ImpalaOptions options_;
};

}  // namespace mnrl::agents
