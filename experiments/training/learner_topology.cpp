#include "experiments/training/learner_topology.h"

#include "core/stop_signal.h"
#include "distributed/communicator.h"
#include "envs/normalize_observation.h"
#include "experiments/training/env_stepper.h"
#include "experiments/training/replicas.h"
#include "experiments/training/train_device.h"

namespace mnrl::experiments {
namespace {

ReplicatedAgent make_learner(const ExperimentOptions& agent_options, const envs::EnvSpec& spec,
                             distributed::Communicator* learners) {
  set_compute_threads(agent_options.train.threads);
  return make_learner_agent(agent_options, spec, learners);
}

// The learners' communicator of an actors-and-learners job (every rank calls it): null with
// one learner, and on the actors. distributed.backend over the learners' ranks of the mpi world:
// under auto, nccl (or hierarchical) for learners on GPUs.
std::unique_ptr<distributed::Communicator> split_learners(const ExperimentOptions& options,
                                                          distributed::Communicator& world) {
  const int learners = options.distributed.learners;
  if (learners == 1) return nullptr;
  auto group = world.split(world.rank() < learners ? 0 : -1);
  if (!group) return nullptr;
  auto communicator = distributed::make_group_communicator(
      options.distributed.backend, trains_on_cuda(options), std::move(group));
  communicator->set_stall_timeout(options.distributed.timeout);
  return communicator;
}

}  // namespace

ActorsLearnersLayout layout_of(const DistributedOptions& distributed,
                               const distributed::Communicator& world) {
  return {distributed.learners, world.size()};
}

LearnerTopology::LearnerTopology(const ExperimentOptions& options,
                                 const ExperimentOptions& agent_options, MetricsSink& metrics,
                                 distributed::Communicator& world,
                                 std::unique_ptr<distributed::Communicator> learners,
                                 const DescribeAgent& describe)
    : options_(options),
      metrics_(metrics),
      leader_(world.rank() == 0),
      learners_communicator_(std::move(learners)),
      learners_(learners_communicator_.get()),
      learner_envs_(make_learner_envs(options.env, options.seed, options.train.eval_episodes)),
      replica_(
          make_learner(agent_options, learner_envs_.envs->spec(), learners_communicator_.get())),
      links_(describe(*replica_.agent, learner_envs_.envs->spec())),
      actors_(world, layout_of(options.distributed, world), links_.payload_floats) {
  if (const auto* normalize = learner_envs_.envs->find_transform<envs::NormalizeObservation>()) {
    actors_.merge_observation_statistics_into(normalize->statistics());
  }
  parts_.agents = {replica_.agent.get()};
  parts_.envs = {learner_envs_.envs.get()};
  if (leader_) parts_.evaluator = learner_envs_.evaluator.get();
  parts_.communicator = learners_communicator_.get();
  const ActorsLearnersLayout layout = layout_of(options.distributed, world);
  parts_.actors = layout.ranks - layout.learners;
  parts_.actor_states = [this] {
    return final_actor_states_ ? *final_actor_states_
                               : actors_.collect_states(options_.distributed.timeout);
  };
}

LearnerTopology::~LearnerTopology() = default;

void LearnerTopology::begin(const TrainingClock& clock) {
  actors_.share_initial(links_.parameters);
  clock_ = clock;
  step_ = clock.first_step;
}

void LearnerTopology::prepare_final_checkpoint() {
  final_actor_states_ = actors_.collect_states(options_.distributed.timeout);
}

std::int64_t LearnerTopology::end(std::int64_t) {
  actors_.stop(links_.parameters, version_, step_);
  return step_;
}

bool LearnerTopology::agree_with_leader(bool decision) {
  LearnerGroup::Round round;  // no steps or episodes: those of the next round stay in mine_
  round.stop = leader_ && decision;
  return learners_.agree(round).stop;
}

void LearnerTopology::count(const ExperienceReport& report) {
  mine_.steps += static_cast<std::int64_t>(report.steps);
  mine_.episodes.episodes += report.episodes;
  mine_.episodes.return_sum += report.return_sum;
  mine_.episodes.length_sum += report.length_sum;
  if (report.stop_requested) mine_.stop = true;
}

bool LearnerTopology::agree(bool ready) {
  if (core::stop_requested()) mine_.stop = true;
  mine_.ready = ready;
  const LearnerGroup::Round all = learners_.agree(mine_);
  step_ += all.steps;
  report_tally(metrics_, step_, all.episodes.episodes, all.episodes.return_sum,
               all.episodes.length_sum);
  stopping_ = all.stop || step_ >= options_.train.total_steps;
  const bool stop_asked = mine_.stop;
  mine_ = LearnerGroup::Round();
  mine_.stop = stop_asked;
  return all.ready;
}

void LearnerTopology::report_learner_update(const agents::Statistics& statistics) {
  report_update(metrics_, step_, statistics);
  ++version_;
  metrics_.scalar(step_, "charts/SPS", clock_.steps_per_second(step_));
  metrics_.scalar(step_, "charts/learner_wait_share", actors_.waited_seconds() / clock_.elapsed());
  metrics_.progress(step_);
}

void ActorsLearnersKind::check_ranks(const ExperimentOptions& options,
                                     const distributed::Communicator& world) const {
  const int learners = options.distributed.learners;
  if (world.size() == 1 || world.size() >= 2 * learners) return;
  throw distributed::CommunicatorError("distributed.learners = " + std::to_string(learners) +
                                       " needs at least " + std::to_string(2 * learners) +
                                       " ranks (an actor for each learner); the job has " +
                                       std::to_string(world.size()));
}

std::unique_ptr<TrainingTopology> ActorsLearnersKind::make(
    const ExperimentOptions& options, MetricsSink& metrics,
    distributed::Communicator* communicator) const {
  if (!communicator || communicator->size() == 1) {
    return std::make_unique<Replicas>(options, metrics, communicator);
  }
  check_ranks(options, *communicator);
  auto learners = split_learners(options, *communicator);
  if (!layout_of(options.distributed, *communicator).learns(communicator->rank())) return nullptr;
  return make_learner(options, metrics, *communicator, std::move(learners));
}

}  // namespace mnrl::experiments
