#pragma once

#include <memory>
#include <optional>

#include "experiments/config/experiment_options.h"
#include "experiments/training/learner_topology.h"

namespace mnrl::agents {
class Impala;
}

namespace mnrl::topologies {

// IMPALA across the processes of an mpirun job: distributed.learners ranks learn, every other
// rank acts, talking as actor_learner_links.h says. The payload is an actor's trajectory of
// impala.unroll_length steps (agents::Impala::trajectory_floats). A learner puts
// impala.batch_trajectories of them side by side in its rollout and takes one V-trace step on
// them (the versions they lag behind are charts/policy_lag); several learners average their
// gradients, so that they stay equal. Every impala.broadcast_interval updates a learner sends
// the parameters to its actors. Between two updates rank 0 may evaluate or write a checkpoint
// while the actors go on acting.
//
// Checkpoints hold the learners' states (the parameters and optimizer, the step, the evaluation
// envs) and the actors' (actor_loop.h), each as it stood after the trajectory it sent with
// it; the trajectories still on their way are not kept.
//
// Registered as topology "impala_actors" (actors run run_impala_actor).
class ImpalaLearner final : public experiments::LearnerTopology {
 public:
  // A learner rank of `world` (layout_of); `learners`: the learners' communicator where there
  // are several (distributed.learners), else null.
  ImpalaLearner(const experiments::ExperimentOptions& options, experiments::MetricsSink& metrics,
                distributed::Communicator& world,
                std::unique_ptr<distributed::Communicator> learners);

  experiments::Advance advance(std::int64_t until) override;

 private:
  // Receives trajectories until the rollout holds a batch of them; false if every actor has
  // sent its final message first.
  bool receive_batch();

  agents::Impala& learner_;  // the agent, sized for a batch of trajectories
  double batch_lag_ = 0.0;   // the last batch's mean policy lag (updates)
};

// An actor rank of the IMPALA job: acts until its learner says stop; returns the global step
// it last reported. `resume_from`: the checkpoint the learners resume from, or null.
std::int64_t run_impala_actor(const experiments::ExperimentOptions& options,
                              distributed::Communicator& communicator,
                              const experiments::Checkpoint* resume_from);

}  // namespace mnrl::topologies
