// distributed.pipeline_stages: PPO's and A2C's network (PipelinedActorCritic), or the DQN
// family's (PipelinedQLearning), cut into stages across the ranks, in one pipeline or several side
// by side (PipelineLayout): each pipeline's stage 0 trains as a data-parallel rank does (envs,
// acting; rank 0 evaluates and checkpoints) with its gradient steps run by its pipeline; every
// other rank serves its stage.
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/seed_streams.h"
#include "distributed/communicator.h"
#include "envs/env_options.h"
#include "experiments/training/agent_factory.h"
#include "experiments/training/replicas.h"
#include "experiments/training/topology_registry.h"
#include "topologies/pipeline/pipeline_layout.h"
#include "topologies/pipeline/pipelined_actor_critic.h"
#include "topologies/pipeline/pipelined_q_learning.h"

namespace mnrl::topologies {
namespace {

using experiments::ExperimentOptions;

// Sets `setup` to hand the agent's gradient steps over to a pipeline of `layout`, made into
// `network` as the agent's factory hands its networks over: an actor-critic's, or the DQN
// family's. `acts`: this rank's agent acts with them (a pipeline's stage 0); a stage rank's
// agent only holds the networks its stage is cut from.
void hand_over_to_pipeline(agents::AgentSetup& setup, const PipelineLayout& layout,
                           const experiments::DistributedOptions& options, bool acts,
                           std::unique_ptr<PipelinedNetwork>& network) {
  setup.external_gradient_steps = [&, acts](nn::ActorCritic& model,
                                            torch::optim::Optimizer& optimizer) {
    auto pipelined = std::make_unique<PipelinedActorCritic>(
        *layout.stages_of_pipeline, layout.stage_replicas.get(), model, optimizer, options);
    auto learner = acts ? std::make_shared<PipelineLearner>(*pipelined) : nullptr;
    network = std::move(pipelined);
    return std::shared_ptr<agents::ExternalGradientSteps>(learner);
  };
  setup.external_td_steps = [&, acts](nn::QNetwork& online, nn::QNetwork& target,
                                      torch::optim::Optimizer& optimizer,
                                      const agents::ReturnDistribution& distribution) {
    auto pipelined = std::make_unique<PipelinedQLearning>(*layout.stages_of_pipeline,
                                                          layout.stage_replicas.get(), online,
                                                          target, optimizer, distribution, options);
    auto learner = acts ? std::make_shared<PipelineTdLearner>(*pipelined) : nullptr;
    network = std::move(pipelined);
    return std::shared_ptr<agents::ExternalTdSteps>(learner);
  };
}

// A pipeline's stage 0: a run of Replicas (one process, or one rank of the pipelines' data-
// parallel job) whose agent's gradient steps go through the pipeline (handed over by its
// factory, agents::AgentSetup::external_gradient_steps).
class PipelineLeader final : public experiments::TrainingTopology {
 public:
  PipelineLeader(const ExperimentOptions& options, experiments::MetricsSink& metrics,
                 PipelineLayout layout)
      : layout_(std::move(layout)),
        replicas_(options, metrics, layout_.actors.get(), [&](agents::AgentSetup& setup) {
          hand_over_to_pipeline(setup, layout_, options.distributed, true, pipeline_);
        }) {
    if (!pipeline_) throw std::logic_error("pipeline stages: the agent handed no steps over");
    parts_ = replicas_.parts();
    parts_.pipeline_stages = layout_.stages;
  }

  experiments::MetricsSink& metrics() override { return replicas_.metrics(); }
  const experiments::TrainingParts& parts() const override { return parts_; }
  bool leader() const override { return replicas_.leader(); }
  void start_episodes(std::optional<std::int64_t> resumed_at) override {
    replicas_.start_episodes(resumed_at);
  }
  // The pipelines' stage 0s take rank 0's parameters (Replicas::begin), then the stages take
  // theirs and their optimizer state: equal at the start, the checkpoint's after a resume.
  void begin(const experiments::TrainingClock& clock) override {
    replicas_.begin(clock);
    pipeline_->lead(PipelinedStages::kPush);
    pipeline_->lead(PipelinedStages::kScatterMoments);
  }
  // A checkpoint saves stage 0's agent: its parameters are the stages' (after every update),
  // its optimizer state is gathered from them first (the last time as they stop: after that,
  // the final checkpoint and evaluation need nothing more of them).
  void while_consistent(const std::function<void()>& action) override {
    if (!stopped_) pipeline_->lead(PipelinedStages::kGatherMoments);
    action();
  }
  experiments::Advance advance(std::int64_t until) override { return replicas_.advance(until); }
  bool agree_with_leader(bool decision) override { return replicas_.agree_with_leader(decision); }
  std::int64_t end(std::int64_t step) override {
    pipeline_->lead(PipelinedStages::kGatherMoments);
    pipeline_->lead(PipelinedStages::kStop, {static_cast<double>(step)});
    stopped_ = true;
    return replicas_.end(step);
  }
  agents::Agent& evaluation_agent() override { return replicas_.evaluation_agent(); }

 private:
  PipelineLayout layout_;
  // Made while replicas_ makes its agent (before the constructor's body), so declared first.
  std::unique_ptr<PipelinedNetwork> pipeline_;
  experiments::Replicas replicas_;
  experiments::TrainingParts parts_;  // replicas_', saying how many stages a pipeline has
  bool stopped_ = false;
};

class PipelineKind final : public experiments::TopologyKind {
 public:
  void check_ranks(const ExperimentOptions& options,
                   const distributed::Communicator& world) const override {
    const int stages = options.distributed.pipeline_stages;
    if (world.size() % stages == 0) return;
    throw distributed::CommunicatorError(
        "distributed.pipeline_stages: " + std::to_string(stages) + " stages take " +
        std::to_string(stages) + " ranks (mpirun -np " + std::to_string(stages) +
        "), or a multiple of " + std::to_string(stages) + " for pipelines side by side, not " +
        std::to_string(world.size()));
  }
  experiments::RankRoles rank_roles(const ExperimentOptions& options) const override {
    experiments::RankRoles roles;
    roles.pipeline_stages = options.distributed.pipeline_stages;
    return roles;
  }
  std::unique_ptr<experiments::TrainingTopology> make(
      const ExperimentOptions& options, experiments::MetricsSink& metrics,
      distributed::Communicator* communicator) const override {
    // The stage ranks split the job in run_rank(), the stage 0s here: in the same order.
    if (!communicator || communicator->rank() % options.distributed.pipeline_stages > 0) {
      return nullptr;
    }
    return std::make_unique<PipelineLeader>(
        options, metrics, split_into_pipelines(*communicator, options.distributed));
  }
  // A stage rank builds the agent its stage 0 builds (the same seeded model), keeps its stage
  // of it and serves stage 0's commands.
  std::int64_t run_rank(const ExperimentOptions& options, distributed::Communicator& world,
                        const experiments::Checkpoint*) const override {
    const PipelineLayout layout = split_into_pipelines(world, options.distributed);
    const auto envs = envs::make_vector_env(
        options.env,
        core::derive_seed(static_cast<std::uint64_t>(options.seed), core::kTrainEnvStream));
    std::unique_ptr<PipelinedNetwork> stage;
    const auto agent =
        experiments::make_agent(options, envs->spec(), [&](agents::AgentSetup& setup) {
          hand_over_to_pipeline(setup, layout, options.distributed, false, stage);
        });
    if (!stage) throw std::logic_error("pipeline stages: the agent handed no steps over");
    return stage->serve();
  }
};

}  // namespace

MNRL_REGISTER_TOPOLOGY("pipeline", PipelineKind);

}  // namespace mnrl::topologies
