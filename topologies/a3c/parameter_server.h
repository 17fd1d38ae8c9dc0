#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "agents/a3c/shared_rmsprop.h"
#include "experiments/config/experiment_options.h"
#include "experiments/training/topology.h"
#include "experiments/training/worker_envs.h"
#include "topologies/a3c/a3c_topology.h"
#include "topologies/a3c/parameter_shards.h"

namespace mnrl::distributed {
class Communicator;
}

namespace mnrl::topologies {

// A3C across the processes of an mpirun job, in the manner of Distributed TensorFlow's
// parameter servers: ranks 0..P-1 (distributed.parameter_servers: P, default 1) each hold one
// shard of the flat parameters and of RMSprop's statistics (parameter_shards.h); every other
// rank is one worker (an A2C learner on env.num_envs envs of its own; a3c.workers is for one
// process) that pushes its gradients and pulls the parameters, asynchronously, shard by shard.
//
// Protocol (point-to-point messages of float tensors; tags and fields in parameter_shards.h):
//  1. Start: rank 0 broadcasts the initial (or resumed) parameters (the only collective) and
//     sends each other server its shard of the statistics.
//  2. A worker, after each rollout's backward pass (gradients clipped), sends every server s a
//     push: [the gradient's shard s | env steps since its last push, episodes ended, their
//     return sum, their length sum, 1 if this rank was asked to stop, kGradient], all at once,
//     then takes the servers' replies.
//  3. Each server serves pushes in arrival order (MPI_ANY_SOURCE): applies its shard of the
//     gradient with RMSprop at the learning rate scheduled for the global step, counts the
//     steps, and replies to that worker without waiting: [its shard's parameters | stop flag |
//     global step]. Rank 0 also reports the episodes, and its reply's stop and step are the
//     ones workers follow; another server's stop flag says it was asked to stop itself (a
//     signal), which the worker passes on to rank 0 in its next push. The worker continues from
//     the replies' parameters: between its push and its next one, other workers' updates land,
//     so its gradients are computed on slightly stale parameters, as in A3C, and a shard may
//     hold an update more or less than another.
//  4. Rank 0 evaluates and writes checkpoints between two of its pushes, while the workers
//     wait for its replies; with P > 1 it first gathers the other shards: a kGather push each,
//     with the count of pushes rank 0 has received, answered with [parameters | statistics]
//     once that server has received as many (a command can overtake other workers' pushes).
//  5. Once the budget is spent, or any rank was asked to stop, rank 0 answers every further
//     push with the stop flag (without applying it) until each worker has been told (end()),
//     gathers the shards a last time and sends the other servers kStop with its count of
//     pushes; each ends once it has answered as many, so no worker waits for a reply. Workers
//     return when told. The servers count the same pushes' steps, so each applies as many
//     pushes as rank 0 where the budget ends the run, up to a round more where a stop does.
// A failing rank aborts the job (mnrl train), so no rank waits forever for a message.
//
// Checkpoints hold rank 0's state: the whole model's parameters and statistics (gathered), the
// step, the evaluation envs; they resume under any distributed.parameter_servers. The workers'
// envs stay on their ranks: a resume starts new episodes there.
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
  // The whole model (gathered), as a snapshot to evaluate.
  agents::Agent& evaluation_agent() override;
  void while_consistent(const std::function<void()>& action) override;
  experiments::TrainingParts evaluated_policy() const override {
    return player_->policy(*learner_envs_.envs);
  }

 private:
  // Serves one push (protocol step 3): applies it unless stopping, and replies.
  void serve_push();
  // Sends the other servers `command`; for kGather takes their shards into the model.
  void command_servers(Push::Command command);
  void gather_shards();  // while the other servers run

  const experiments::ExperimentOptions options_;
  experiments::MetricsSink& metrics_;
  distributed::Communicator& communicator_;
  // As many envs as a worker's, so that their envs.state reads as any A3C checkpoint's.
  experiments::LearnerEnvs learner_envs_;
  std::shared_ptr<agents::SharedModel> model_;
  const int servers_;
  std::vector<ShardRange> shards_;
  std::unique_ptr<ShardServer> server_;  // shard 0, a view into model_
  bool servers_stopped_ = false;
  experiments::TrainingParts parts_;
  experiments::TrainingClock clock_;
  std::int64_t step_ = 0;
  double waited_seconds_ = 0;         // in receive, for a push (charts/server_wait_share)
  std::int64_t pushes_received_ = 0;  // as many as every other server gets
  int workers_running_;
  bool stopping_ = false;  // the budget is spent or a stop was asked for
  std::optional<SnapshotPlayer> player_;
};

// A worker rank (P and above) of the parameter-server job (protocol steps 1, 2 and 5): trains
// until rank 0 says stop; returns the global step rank 0 last reported. `resumed_at`: the step of
// the checkpoint rank 0 resumes from (this rank's envs then start new episodes seeded by it).
std::int64_t run_parameter_server_worker(const experiments::ExperimentOptions& options,
                                         distributed::Communicator& communicator,
                                         std::optional<std::int64_t> resumed_at);

}  // namespace mnrl::topologies
