#include "experiments/training/replicas.h"

#include "core/rng.h"
#include "core/seed_streams.h"
#include "core/stop_signal.h"
#include "distributed/communicator.h"
#include "distributed/gradient_synchronizer.h"
#include "experiments/training/topology_registry.h"

namespace mnrl::experiments {
namespace {

ExperimentOptions rank_options(const ExperimentOptions& options,
                               distributed::Communicator* communicator) {
  if (!communicator || communicator->size() == 1) return options;
  return options_for_rank(options, communicator->rank(), communicator->size());
}

// One agent per process: every rank a replica.
class ReplicasKind final : public TopologyKind {
 public:
  std::unique_ptr<TrainingTopology> make(const ExperimentOptions& options, MetricsSink& metrics,
                                         distributed::Communicator* communicator) const override {
    return std::make_unique<Replicas>(options, metrics, communicator);
  }
};

MNRL_REGISTER_TOPOLOGY("replicas", ReplicasKind);

}  // namespace

Replicas::Replicas(const ExperimentOptions& options, MetricsSink& metrics,
                   distributed::Communicator* communicator,
                   const std::function<void(agents::AgentSetup&)>& customize)
    : options_(rank_options(options, communicator)),
      total_steps_(options.train.total_steps),
      ranks_(communicator ? communicator->size() : 1),
      leader_(!communicator || communicator->rank() == 0),
      metrics_(metrics) {
  const auto seed = static_cast<std::uint64_t>(options_.seed);
  set_compute_threads(options_.train.threads);
  envs_ = envs::make_vector_env(options_.env, core::derive_seed(seed, core::kTrainEnvStream));
  if (leader_) {
    evaluator_.emplace(options_.env, options_.train.eval_episodes,
                       core::derive_seed(seed, core::kEvalEnvStream), *envs_);
  }
  if (ranks_ > 1) {
    replica_ = make_replicated_agent(options_, envs_->spec(), *communicator, customize);
    data_parallel_.emplace(*communicator, options_.distributed, *replica_.synchronizer, *envs_);
    reduced_.emplace(*communicator, leader_ ? &metrics_ : nullptr);
  } else {
    replica_.agent = make_agent(options_, envs_->spec(), customize);
  }
  actor_.emplace(*replica_.agent, *envs_);
  parts_.agents = {replica_.agent.get()};
  parts_.envs = {envs_.get()};
  parts_.evaluator = evaluator_ ? &*evaluator_ : nullptr;
  parts_.communicator = ranks_ > 1 ? communicator : nullptr;
}

Replicas::~Replicas() = default;

void Replicas::start_episodes(std::optional<std::int64_t> resumed_at) {
  if (resumed_at) {
    envs_->reseed(core::derive_seed(
        core::derive_seed(static_cast<std::uint64_t>(options_.seed), core::kTrainEnvStream),
        static_cast<std::uint64_t>(*resumed_at)));
  }
  envs_->reset();
}

void Replicas::begin(const TrainingClock& clock) {
  if (data_parallel_) data_parallel_->broadcast_from_leader();
  clock_ = clock;
  step_ = clock.first_step;
}

Advance Replicas::advance(std::int64_t until) {
  agents::Agent& agent = *replica_.agent;
  // Episodes and update statistics: as they come, or reduced over the ranks at each update.
  MetricsSink& learning_metrics = reduced_ ? static_cast<MetricsSink&>(*reduced_) : metrics_;
  // Steps count the env steps of every rank: all ranks step the same number of envs in
  // lockstep (each update is collective).
  const std::int64_t steps_per_step = static_cast<std::int64_t>(actor_->num_envs()) * ranks_;
  do {
    const bool stop = data_parallel_ ? data_parallel_->stop_agreed(core::stop_requested())
                                     : core::stop_requested();
    if (stop) return {step_, true};
    actor_->step();
    step_ += steps_per_step;
    actor_->report_episodes(learning_metrics, step_);
    bool update = agent.update_ready();
    // A replay agent's readiness depends on its buffer, which fills at each rank's own pace;
    // the ranks update together or not at all.
    if (data_parallel_ && agent.has_replay()) update = data_parallel_->all_agree(update);
    if (update) {
      const agents::Statistics statistics = agent.update({step_, total_steps_});
      report_update(learning_metrics, step_, statistics);
      if (data_parallel_) {
        data_parallel_->after_update();
        reduced_->publish(step_);
      }
      // charts/SPS goes with the update's statistics: SAC, TD3 and DDPG update at every env
      // step but report every ContinuousOffPolicyAgent::kStatisticsInterval steps.
      if (leader_ && !statistics.empty()) {
        metrics_.scalar(step_, "charts/SPS", clock_.steps_per_second(step_));
      }
    }
    metrics_.progress(step_);
  } while (step_ < until);
  return {step_, false};
}

bool Replicas::agree_with_leader(bool decision) {
  // The others bring false: any rank's is the leader's.
  return data_parallel_ ? data_parallel_->any_rank(leader_ && decision) : decision;
}

std::int64_t Replicas::end(std::int64_t step) {
  if (reduced_) reduced_->publish(step);  // the episodes since the last update
  return step;
}

}  // namespace mnrl::experiments
