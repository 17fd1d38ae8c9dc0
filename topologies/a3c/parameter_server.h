#pragma once

#include <memory>
#include <optional>

#include "agents/a3c/shared_rmsprop.h"
#include "experiments/config/experiment_options.h"
#include "experiments/training/topology.h"
#include "experiments/training/worker_envs.h"
#include "topologies/a3c/a3c_topology.h"

namespace mnrl::distributed {
class Communicator;
}

namespace mnrl::topologies {

// A3C across the processes of an mpirun job, in the manner of Distributed TensorFlow's
// parameter server: rank 0 holds the shared parameters and RMSprop's statistics; every other
// rank is one worker (an A2C learner on env.num_envs envs of its own; a3c.workers is for one
// process) that pushes its gradients and pulls the parameters, asynchronously.
//
// Protocol (point-to-point messages of float tensors; P = the number of parameters):
//  1. Start: rank 0 broadcasts the initial (or resumed) parameters (the only collective).
//  2. A worker, after each rollout's backward pass (gradients clipped), sends rank 0 a push
//     (tag 1): [gradient (P) | env steps since its last push, episodes ended, their return
//     sum, their length sum, 1 if this rank was asked to stop]. It then waits for the reply.
//  3. Rank 0 serves pushes in arrival order (MPI_ANY_SOURCE): applies the gradient with
//     RMSprop at the learning rate scheduled for the global step, counts the steps, reports the
//     episodes, and replies to that worker (tag 2): [parameters (P) | 1 to stop | global step].
//     The worker continues from those parameters: between its push and its next one, other
//     workers' updates land, so its gradients are computed on slightly stale parameters, as
//     in A3C. Between two pushes rank 0 may evaluate or write a checkpoint while the workers
//     wait for their replies.
//  4. Once the budget is spent, or any rank was asked to stop, rank 0 answers every further
//     push with the stop flag (without applying it) until each worker has been told (end()).
//     Workers return when told.
// A failing rank aborts the job (mnrl train), so no rank waits forever for a message.
//
// Checkpoints hold rank 0's state: the shared parameters and statistics, the step, the
// evaluation envs. The workers' envs stay on their ranks: a resume starts new episodes there.
class ParameterServer final : public experiments::TrainingTopology {
 public:
  // Rank 0 of `communicator`.
  ParameterServer(const experiments::ExperimentOptions& options, experiments::MetricsSink& metrics,
                  distributed::Communicator& communicator);
  ~ParameterServer() override;

  experiments::MetricsSink& metrics() override { return metrics_; }
  const experiments::TrainingParts& parts() const override { return parts_; }
  // Resets rank 0's envs (the workers' envs are theirs).
  void start_episodes(std::optional<std::int64_t>) override { learner_envs_.envs->reset(); }
  void begin(const experiments::TrainingClock& clock) override;
  experiments::Advance advance(std::int64_t until) override;
  std::int64_t end(std::int64_t step) override;
  agents::Agent& evaluation_agent() override { return player_->play(*model_); }
  experiments::TrainingParts evaluated_policy() const override {
    return player_->policy(*learner_envs_.envs);
  }

 private:
  struct Server;  // the optimizer and message buffers (LibTorch)

  // Serves one push (protocol step 3): applies it unless stopping, and replies.
  void serve_push();

  const experiments::ExperimentOptions options_;
  experiments::MetricsSink& metrics_;
  distributed::Communicator& communicator_;
  // As many envs as a worker's, so that their envs.state reads as any A3C checkpoint's.
  experiments::LearnerEnvs learner_envs_;
  std::shared_ptr<agents::SharedModel> model_;
  std::unique_ptr<Server> server_;
  experiments::TrainingParts parts_;
  experiments::TrainingClock clock_;
  std::int64_t step_ = 0;
  int workers_running_;
  bool stopping_ = false;  // the budget is spent or a stop was asked for
  std::optional<SnapshotPlayer> player_;
};

// A worker rank > 0 of the parameter-server job (protocol steps 1, 2 and 4): trains until rank
// 0 says stop; returns the global step rank 0 last reported. `resumed_at`: the step of the
// checkpoint rank 0 resumes from (this rank's envs then start new episodes seeded by it).
std::int64_t run_parameter_server_worker(const experiments::ExperimentOptions& options,
                                         distributed::Communicator& communicator,
                                         std::optional<std::int64_t> resumed_at);

}  // namespace mnrl::topologies
