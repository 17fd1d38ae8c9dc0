#pragma once

#include <memory>
#include <thread>
#include <vector>

#include "agents/a3c/shared_rmsprop.h"
#include "agents/agent.h"
#include "envs/vector_env.h"
#include "experiments/config/experiment_options.h"
#include "experiments/evaluation/evaluator.h"
#include "experiments/training/topology.h"
#include "topologies/a3c/a3c_topology.h"

namespace mnrl::topologies {

struct WorkerCoordination;  // worker_threads.cpp

// A3C in one process: a3c.workers threads, each an A2C learner on its own envs (seeded apart)
// and its own copy of the model, all applying their updates to one shared model
// (agents::SharedModel). The workers stop at their first step boundary at or past the step the
// loop advances to (its next evaluation, checkpoint or the budget; the steps then pass it by at
// most a vector step per worker) and wait there until it advances again, so that evaluations
// and checkpoints fall where they are due however late the loop's thread runs; the loop
// evaluates snapshots of the shared model. Episode and update statistics of every worker go to
// the metrics (serialized) at the global step count. An error in one worker stops all and is
// rethrown by end(). Not deterministic across runs: the workers interleave freely.
class WorkerThreads final : public experiments::TrainingTopology {
 public:
  WorkerThreads(const experiments::ExperimentOptions& options, experiments::MetricsSink& metrics);
  ~WorkerThreads() override;

  experiments::MetricsSink& metrics() override;
  const experiments::TrainingParts& parts() const override { return parts_; }
  void start_episodes(std::optional<std::int64_t> resumed_at) override;
  void begin(const experiments::TrainingClock& clock) override;
  experiments::Advance advance(std::int64_t until) override;
  void while_consistent(const std::function<void()>& action) override;
  std::int64_t end(std::int64_t step) override;
  agents::Agent& evaluation_agent() override { return player_->play(*model_); }
  experiments::TrainingParts evaluated_policy() const override {
    return player_->policy(*envs_.front());
  }

 private:
  const experiments::ExperimentOptions options_;
  std::unique_ptr<WorkerCoordination> shared_;
  std::vector<std::unique_ptr<envs::VectorEnv>> envs_;
  std::shared_ptr<agents::SharedModel> model_;
  std::vector<std::unique_ptr<agents::Agent>> workers_;
  std::unique_ptr<experiments::Evaluator> evaluator_;
  experiments::TrainingParts parts_;
  std::vector<std::thread> threads_;
  std::optional<SnapshotPlayer> player_;
};

}  // namespace mnrl::topologies
