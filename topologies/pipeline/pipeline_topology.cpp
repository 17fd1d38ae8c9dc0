// distributed.pipeline_stages: PPO's and A2C's network cut into stages across the ranks
// (PipelinedActorCritic): rank 0 trains as one process does (envs, acting, evaluation,
// checkpoints) with its gradient steps run by the pipeline; every other rank serves its stage.
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/seed_streams.h"
#include "distributed/communicator.h"
#include "envs/env_options.h"
#include "experiments/training/agent_factory.h"
#include "experiments/training/replicas.h"
#include "experiments/training/topology_registry.h"
#include "topologies/pipeline/pipelined_actor_critic.h"

namespace mnrl::topologies {
namespace {

using experiments::ExperimentOptions;

// Rank 0: a one-process run (Replicas) whose agent's gradient steps go through the pipeline
// (handed over by its factory, agents::AgentSetup::external_gradient_steps).
class PipelineLeader final : public experiments::TrainingTopology {
 public:
  PipelineLeader(const ExperimentOptions& options, experiments::MetricsSink& metrics,
                 distributed::Communicator& world)
      : replicas_(options, metrics, nullptr, [&](agents::AgentSetup& setup) {
          setup.external_gradient_steps = [&](nn::ActorCritic& model,
                                              torch::optim::Optimizer& optimizer) {
            pipeline_ = std::make_unique<PipelinedActorCritic>(world, model, optimizer,
                                                               options.distributed);
            learner_ = std::make_shared<PipelineLearner>(*pipeline_);
            return learner_;
          };
        }) {
    if (!pipeline_) throw std::logic_error("pipeline stages: the agent handed no steps over");
  }

  experiments::MetricsSink& metrics() override { return replicas_.metrics(); }
  const experiments::TrainingParts& parts() const override { return replicas_.parts(); }
  void start_episodes(std::optional<std::int64_t> resumed_at) override {
    replicas_.start_episodes(resumed_at);
  }
  // The stages take rank 0's parameters and optimizer state: equal to theirs at the start, the
  // checkpoint's after a resume.
  void begin(const experiments::TrainingClock& clock) override {
    pipeline_->lead(PipelinedActorCritic::kPush);
    pipeline_->lead(PipelinedActorCritic::kScatterMoments);
    replicas_.begin(clock);
  }
  // A checkpoint saves rank 0's agent: its parameters are the stages' (after every update),
  // its optimizer state is gathered from them first (the last time as they stop: after that,
  // the final checkpoint and evaluation need nothing more of them).
  void while_consistent(const std::function<void()>& action) override {
    if (!stopped_) pipeline_->lead(PipelinedActorCritic::kGatherMoments);
    action();
  }
  experiments::Advance advance(std::int64_t until) override { return replicas_.advance(until); }
  std::int64_t end(std::int64_t step) override {
    pipeline_->lead(PipelinedActorCritic::kGatherMoments);
    pipeline_->lead(PipelinedActorCritic::kStop, {static_cast<double>(step)});
    stopped_ = true;
    return replicas_.end(step);
  }
  agents::Agent& evaluation_agent() override { return replicas_.evaluation_agent(); }

 private:
  // Made while replicas_ makes its agent (before the constructor's body), so declared first.
  std::unique_ptr<PipelinedActorCritic> pipeline_;
  std::shared_ptr<PipelineLearner> learner_;
  experiments::Replicas replicas_;
  bool stopped_ = false;
};

class PipelineKind final : public experiments::TopologyKind {
 public:
  void check_ranks(const ExperimentOptions& options,
                   const distributed::Communicator& world) const override {
    const int stages = options.distributed.pipeline_stages;
    if (world.size() == stages) return;
    throw distributed::CommunicatorError("distributed.pipeline_stages: " + std::to_string(stages) +
                                         " stages take " + std::to_string(stages) +
                                         " ranks (mpirun -np " + std::to_string(stages) +
                                         "), not " + std::to_string(world.size()));
  }
  experiments::RankRoles rank_roles(const ExperimentOptions&) const override {
    return {1, "stage 0 and actor", "pipeline stage"};
  }
  std::unique_ptr<experiments::TrainingTopology> make(
      const ExperimentOptions& options, experiments::MetricsSink& metrics,
      distributed::Communicator* communicator) const override {
    if (!communicator || communicator->rank() > 0) return nullptr;
    return std::make_unique<PipelineLeader>(options, metrics, *communicator);
  }
  // A stage rank builds the agent rank 0 builds (the same seeded model), keeps its stage of it
  // and serves rank 0's commands.
  std::int64_t run_rank(const ExperimentOptions& options, distributed::Communicator& world,
                        const experiments::Checkpoint*) const override {
    const auto envs = envs::make_vector_env(
        options.env,
        core::derive_seed(static_cast<std::uint64_t>(options.seed), core::kTrainEnvStream));
    std::unique_ptr<PipelinedActorCritic> stage;
    const auto agent =
        experiments::make_agent(options, envs->spec(), [&](agents::AgentSetup& setup) {
          setup.external_gradient_steps = [&](nn::ActorCritic& model,
                                              torch::optim::Optimizer& optimizer) {
            stage = std::make_unique<PipelinedActorCritic>(world, model, optimizer,
                                                           options.distributed);
            return std::shared_ptr<agents::ExternalGradientSteps>();  // it acts for nobody
          };
        });
    if (!stage) throw std::logic_error("pipeline stages: the agent handed no steps over");
    return stage->serve();
  }
};

}  // namespace

MNRL_REGISTER_TOPOLOGY("pipeline", PipelineKind);

}  // namespace mnrl::topologies
