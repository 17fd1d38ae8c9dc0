#pragma once

#include <memory>
#include <optional>

#include "envs/vector_env.h"
#include "experiments/config/experiment_options.h"
#include "experiments/evaluation/evaluator.h"
#include "experiments/training/topology.h"

namespace mnrl::distributed {
class Communicator;
}
namespace mnrl::agents {
class Impala;
}

namespace mnrl::experiments {

// IMPALA across the processes of an mpirun job: rank 0 learns, every other rank acts.
//
// Protocol (point-to-point float tensors; P = the number of parameters, F = the floats of one
// actor's trajectory, agents::Impala::trajectory_floats):
//  1. Start: rank 0 broadcasts the initial (or resumed) parameters (the only collective).
//  2. An actor steps its env.num_envs envs with its copy of the policy. Before each trajectory
//     it takes the newest parameters rank 0 has sent (tag 4): [parameters (P) | 1 to stop,
//     their version, global step]. After impala.unroll_length steps it sends the trajectory
//     (tag 3): [trajectory (F) | env steps, episodes ended, their return sum, their length sum,
//     1 if this rank was asked to stop, the version it acted with, 1 if final]. It waits only
//     while impala.queue_size of its trajectories are still in flight.
//  3. Rank 0 receives trajectories in arrival order, impala.batch_trajectories side by side in
//     its rollout, and takes one V-trace step on them (the versions they lag behind are
//     charts/policy_lag). Every impala.broadcast_interval updates it sends the parameters to
//     each actor that has taken the previous ones. Between two updates it may evaluate or
//     write a checkpoint while the actors go on acting.
//  4. Once the budget is spent, or any rank was asked to stop, rank 0 sends every actor the
//     stop flag, then receives (and drops) trajectories until each actor's final message.
// A failing rank aborts the job (mnrl train), so no rank waits forever for a message.
//
// Checkpoints hold rank 0's state: the parameters and optimizer, the step, the evaluation
// envs. The actors' envs stay on their ranks: a resume starts new episodes there.
class ImpalaLearner final : public TrainingTopology {
 public:
  // Rank 0 of `communicator`.
  ImpalaLearner(const ExperimentOptions& options, MetricsSink& metrics,
                distributed::Communicator& communicator);
  ~ImpalaLearner() override;

  MetricsSink& metrics() override { return metrics_; }
  const TrainingParts& parts() const override { return parts_; }
  // Resets rank 0's envs (the actors' envs are theirs).
  void start_episodes(std::optional<std::int64_t>) override { envs_->reset(); }
  void begin(const TrainingClock& clock) override;
  Advance advance(std::int64_t until) override;
  std::int64_t end(std::int64_t step) override;
  agents::Agent& evaluation_agent() override;

 private:
  // Receives trajectories until the rollout holds a batch of them (protocol step 3); false if
  // every actor has sent its final message first.
  bool receive_batch();
  // Sends the parameters and the flag to every actor that has taken the previous ones (or to
  // every actor, waiting, when `stop`).
  void send_parameters(bool stop);

  const ExperimentOptions options_;
  MetricsSink& metrics_;
  distributed::Communicator& communicator_;
  // Never stepped: the spec, the evaluator's wrappers, and the envs a checkpoint's policy is
  // evaluated on.
  std::unique_ptr<envs::VectorEnv> envs_;
  std::unique_ptr<agents::Agent> agent_;
  agents::Impala* learner_;  // agent_, sized for a batch of trajectories
  std::unique_ptr<Evaluator> evaluator_;
  TrainingParts parts_;
  TrainingClock clock_;
  std::int64_t step_ = 0;
  std::int64_t version_ = 0;  // updates taken
  std::int64_t trajectory_floats_;
  int actors_running_;
  bool stopping_ = false;  // the budget is spent or a stop was asked for
};

// An actor rank > 0 of the IMPALA job (protocol steps 1, 2 and 4): acts until rank 0 says
// stop; returns the global step rank 0 last reported. `resumed_at`: the step of the checkpoint
// rank 0 resumes from (this rank's envs then start new episodes seeded by it).
std::int64_t run_impala_actor(const ExperimentOptions& options,
                              distributed::Communicator& communicator,
                              std::optional<std::int64_t> resumed_at);

}  // namespace mnrl::experiments
