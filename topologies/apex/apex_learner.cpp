#include "topologies/apex/apex_learner.h"

#include <torch/utils.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "agents/apex/apex_options.h"
#include "agents/apex/apex_r2d2_options.h"
#include "agents/dqn/dqn.h"
#include "agents/r2d2/r2d2.h"
#include "distributed/communicator.h"
#include "experiments/training/actor_loop.h"
#include "experiments/training/agent_factory.h"

namespace mnrl::topologies {
namespace {

using experiments::Actor;
using experiments::Advance;
using experiments::Checkpoint;
using experiments::ExperienceReport;
using experiments::ExperimentOptions;
using experiments::LearnerLink;
using experiments::MetricsSink;

// Each variant's items, and its target copies after the learner's `version`th update: Ape-X
// DQN's learner copies every target_update_interval updates (its Dqn counts env steps for that,
// and a learner steps none); R2D2's agent copies its own every target_update_interval gradient
// steps.
std::unique_ptr<ApexExperience> experience_of(agents::Agent& agent, const envs::EnvSpec& spec,
                                              bool actor, const agents::ApexOptions&) {
  return transitions_of(dynamic_cast<agents::Dqn&>(agent), spec, actor);
}
std::unique_ptr<ApexExperience> experience_of(agents::Agent& agent, const envs::EnvSpec&, bool,
                                              const agents::ApexR2d2Options&) {
  return sequences_of(dynamic_cast<agents::R2d2&>(agent));
}
void copy_target_when_due(const agents::ApexOptions& apex, std::int64_t version,
                          agents::Agent& agent) {
  if (version % apex.target_update_interval == 0) dynamic_cast<agents::Dqn&>(agent).update_target();
}
void copy_target_when_due(const agents::ApexR2d2Options&, std::int64_t, agents::Agent&) {}

}  // namespace

template <class Options>
ApexLearner<Options>::ApexLearner(const ExperimentOptions& options, MetricsSink& metrics,
                                  distributed::Communicator& world,
                                  std::unique_ptr<distributed::Communicator> learners)
    : LearnerTopology(options, options, metrics, world, std::move(learners),
                      [&options](agents::Agent& agent, const envs::EnvSpec& spec) {
                        const Options& apex = options.hyperparameters<Options>();
                        const auto experience = experience_of(agent, spec, false, apex);
                        return AgentLinks{experience->parameters().detach(),
                                          apex.actors.send_size * experience->item_floats()};
                      }),
      apex_(options_.hyperparameters<Options>()),
      experience_(experience_of(*replica_.agent, learner_envs_.envs->spec(), false, apex_)) {}

template <class Options>
std::int64_t ApexLearner<Options>::updates_allowed() const {
  if (apex_.actors.steps_per_update == 0 || !ratio_from_) return 0;
  return (own_steps_ - *ratio_from_) / apex_.actors.steps_per_update;
}

template <class Options>
bool ApexLearner<Options>::update_due() {
  if (experience_->replay_size() < apex_.warm_items()) return false;
  if (apex_.actors.steps_per_update == 0) return true;
  // The replay ratio counts from when the replay became ready (at the start, or after a
  // resume without it), so that its filling is no backlog of updates.
  if (!ratio_from_) ratio_from_ = own_steps_;
  return updates_ < updates_allowed();
}

template <class Options>
bool ApexLearner<Options>::receive_items() {
  const float* payload = actors_.receive();
  if (payload == nullptr) return false;
  const ExperienceReport& report = actors_.report();
  try {
    experience_->add(payload, apex_.actors.send_size);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error("a damaged message from rank " + std::to_string(report.source) + ": " +
                             e.what());
  }
  own_steps_ += static_cast<std::int64_t>(report.steps);
  count(report);
  lag_sum_ += static_cast<double>(version_ - report.acted_with);
  ++lag_count_;
  return true;
}

template <class Options>
Advance ApexLearner<Options>::advance(std::int64_t until) {
  const agents::ApexActorOptions& actors = apex_.actors;
  const std::int64_t total_steps = options_.train.total_steps;
  while (step_ < until && !stopping_) {
    // As fast as it can: what the actors have sent (at most a message each) before each
    // update. Else a message only while no update is due, so that the learner keeps the
    // replay ratio and the actors wait while it is behind.
    for (int k = 0; actors.steps_per_update == 0 && k < actors_.actors_running() &&
                    actors_.experience_waiting();
         ++k) {
      if (!receive_items()) return {step_, true};  // the actors are gone
    }
    if (!update_due() && !receive_items()) return {step_, true};
    // Every learner agrees after each message or update (so that stops and steps count while
    // a replay fills), and all update together once each is due.
    if (!agree(update_due()) || stopping_) continue;
    if (lag_count_ > 0) {
      metrics_.scalar(step_, "charts/policy_lag", lag_sum_ / lag_count_);
      lag_sum_ = 0.0;
      lag_count_ = 0;
    }
    report_learner_update(replica_.agent->update({step_, total_steps}));
    ++updates_;
    copy_target_when_due(apex_, version_, *replica_.agent);
    if (version_ % actors.broadcast_interval == 0) {
      actors_.send_parameters(links_.parameters, version_, step_);
    }
  }
  return {step_, stopping_ && step_ < total_steps};
}

template <class Options>
std::int64_t run_apex_actor(const ExperimentOptions& options,
                            distributed::Communicator& communicator,
                            const Checkpoint* resume_from) {
  Actor actor = experiments::make_actor(
      options, communicator.rank(), resume_from,
      [](ExperimentOptions& mine) { mine.hyperparameters<Options>().as_actor(mine.env.num_envs); });
  const Options& apex = actor.options.hyperparameters<Options>();
  const auto experience = experience_of(*actor.agent, actor.envs->spec(), true, apex);
  const int learners = options.distributed.learners;
  experience->explore_with(
      apex.actors.actor_epsilon(communicator.rank() - learners, communicator.size() - learners));
  torch::NoGradGuard no_grad;
  LearnerLink learner(communicator, experiments::layout_of(options.distributed, communicator),
                      experience->parameters().detach(),
                      apex.actors.send_size * experience->item_floats(), apex.actors.queue_size,
                      actor.first_step);
  return experiments::act_until_stopped(
      learner, actor, resume_from,
      [&] { return experience->items_waiting() >= apex.actors.send_size; },
      [&](float* payload) { experience->take(apex.actors.send_size, payload); });
}

template class ApexLearner<agents::ApexOptions>;
template class ApexLearner<agents::ApexR2d2Options>;

using ApexDqnKind = experiments::ActorsLearnersKindOf<ApexLearner<agents::ApexOptions>,
                                                      &run_apex_actor<agents::ApexOptions>>;
using ApexR2d2Kind = experiments::ActorsLearnersKindOf<ApexLearner<agents::ApexR2d2Options>,
                                                       &run_apex_actor<agents::ApexR2d2Options>>;

MNRL_REGISTER_TOPOLOGY("apex_actors", ApexDqnKind);
MNRL_REGISTER_TOPOLOGY("apex_r2d2_actors", ApexR2d2Kind);

}  // namespace mnrl::topologies
