#pragma once

#include <memory>

#include "agents/a3c/shared_rmsprop.h"
#include "agents/agent.h"
#include "envs/space.h"
#include "envs/vector_env.h"
#include "experiments/checkpoints/training_checkpoint.h"
#include "experiments/config/experiment_options.h"

namespace mnrl::topologies {

// What A3C's two topologies (worker_threads.h in one process, parameter_server.h across ranks)
// and its checkpoints' policy share. Registered as topology "a3c_workers".

// The model every A3C worker learns into, initialized as make_agent() would initialize its
// network (seeding LibTorch's generator from options.seed).
std::shared_ptr<agents::SharedModel> make_a3c_shared_model(
    const experiments::ExperimentOptions& options, const envs::EnvSpec& spec);

// `model` in a checkpoint: its parameters and RMSprop's statistics, after the workers' agents.
experiments::SharedState shared_model_state(agents::SharedModel& model);

// The agent A3C evaluates while its workers train: a worker over a consistent snapshot of the
// shared model taken at each play(), which the running workers' updates do not reach.
class SnapshotPlayer {
 public:
  SnapshotPlayer(const experiments::ExperimentOptions& options, const envs::EnvSpec& spec);
  ~SnapshotPlayer();

  // Takes a snapshot of `model` now; returns the agent that plays it, valid until the next
  // play().
  agents::Agent& play(agents::SharedModel& model);
  // What saves the policy play() last returned (checkpoints/best), with `envs`' state.
  experiments::TrainingParts policy(envs::VectorEnv& envs) const;

 private:
  const experiments::ExperimentOptions& options_;
  const envs::EnvSpec& spec_;
  std::shared_ptr<agents::SharedModel> snapshot_;
  std::unique_ptr<agents::Agent> player_;
};

}  // namespace mnrl::topologies
