#pragma once

#include <functional>
#include <memory>
#include <optional>

#include "agents/agent.h"
#include "envs/vector_env.h"
#include "experiments/training/agent_factory.h"
#include "experiments/training/data_parallel.h"
#include "experiments/evaluation/evaluator.h"
#include "experiments/config/experiment_options.h"
#include "experiments/training/env_stepper.h"
#include "experiments/training/topology.h"

namespace mnrl::distributed {
class Communicator;
}

namespace mnrl::experiments {

// One learner, on-policy (PPO, A2C) or off-policy (DQN): acts on the training envs, steps them,
// observes, and updates whenever the agent is ready. Episodes and update statistics go to the
// metrics as they come; charts/SPS counts this process.
//
// With a `communicator` of several ranks, it is one rank of a data-parallel job (DataParallel):
// every rank holds the same agent and steps envs of its own in lockstep; the steps count all
// ranks' env steps; only rank 0 evaluates and reports to `metrics` (episodes and update
// statistics reduced over the ranks); checkpoints hold every rank's agent and envs.
class Replicas final : public TrainingTopology {
 public:
  // `customize`: the agent's setup changed as make_agent() takes it.
  Replicas(const ExperimentOptions& options, MetricsSink& metrics,
           distributed::Communicator* communicator,
           const std::function<void(agents::AgentSetup&)>& customize = {});
  ~Replicas() override;

  MetricsSink& metrics() override { return metrics_; }
  const TrainingParts& parts() const override { return parts_; }
  bool leader() const override { return leader_; }
  void start_episodes(std::optional<std::int64_t> resumed_at) override;
  void begin(const TrainingClock& clock) override;
  Advance advance(std::int64_t until) override;
  bool agree_with_leader(bool decision) override;
  std::int64_t end(std::int64_t step) override;
  agents::Agent& evaluation_agent() override { return *replica_.agent; }

 private:
  const ExperimentOptions options_;  // this rank's (options_for_rank)
  const std::int64_t total_steps_;
  const int ranks_;
  const bool leader_;
  MetricsSink& metrics_;
  std::unique_ptr<envs::VectorEnv> envs_;
  std::optional<Evaluator> evaluator_;  // rank 0's: every rank holds the same policy
  ReplicatedAgent replica_;
  std::optional<DataParallel> data_parallel_;
  std::optional<ReducedMetrics> reduced_;
  std::optional<EnvStepper> actor_;
  TrainingParts parts_;
  TrainingClock clock_;
  std::int64_t step_ = 0;
};

}  // namespace mnrl::experiments
