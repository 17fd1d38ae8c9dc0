#include "topologies/apex/apex_learner.h"

#include <torch/utils.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "agents/apex/apex_options.h"
#include "agents/dqn/dqn.h"
#include "distributed/communicator.h"
#include "experiments/training/actor_loop.h"
#include "experiments/training/agent_factory.h"
#include "replay/transition_rows.h"

namespace mnrl::topologies {
namespace {

using experiments::Actor;
using experiments::Advance;
using experiments::Checkpoint;
using experiments::ExperienceReport;
using experiments::ExperimentOptions;
using experiments::LearnerLink;
using experiments::MetricsSink;

const agents::ApexOptions& apex_options(const ExperimentOptions& options) {
  return options.hyperparameters<agents::ApexOptions>();
}

}  // namespace

ApexLearner::ApexLearner(const ExperimentOptions& options, MetricsSink& metrics,
                         distributed::Communicator& world,
                         std::unique_ptr<distributed::Communicator> learners)
    : LearnerTopology(options, options, metrics, world, std::move(learners),
                      [&options](agents::Agent& agent, const envs::EnvSpec& spec) {
                        const replay::TransitionRows rows(envs::flat_size(spec.observation_space),
                                                          1);
                        return AgentLinks{dynamic_cast<agents::Dqn&>(agent).parameters().detach(),
                                          apex_options(options).send_size * rows.row_floats()};
                      }),
      learner_(dynamic_cast<agents::Dqn&>(*replica_.agent)) {}

std::int64_t ApexLearner::updates_allowed() const {
  const agents::ApexOptions& apex = apex_options(options_);
  if (apex.steps_per_update == 0 || !ratio_from_) return 0;
  return (own_steps_ - *ratio_from_) / apex.steps_per_update;
}

bool ApexLearner::update_due() {
  const agents::ApexOptions& apex = apex_options(options_);
  // DQN's warm-up: a replay smaller than learning_starts learns once it is full.
  const std::int64_t warm =
      std::max(std::min(apex.learning_starts, apex.buffer_size), apex.batch_size);
  if (learner_.replay_size() < warm) return false;
  if (apex.steps_per_update == 0) return true;
  // The replay ratio counts from when the replay became ready (at the start, or after a
  // resume without it), so that its filling is no backlog of updates.
  if (!ratio_from_) ratio_from_ = own_steps_;
  return updates_ < updates_allowed();
}

bool ApexLearner::receive_transitions() {
  const float* payload = actors_.receive();
  if (payload == nullptr) return false;
  const envs::EnvSpec& spec = learner_envs_.envs->spec();
  const ExperienceReport& report = actors_.report();
  try {
    replay::for_each_transition(payload, apex_options(options_).send_size,
                                envs::flat_size(spec.observation_space), 1,
                                envs::element_dtype(spec.observation_space),
                                [&](const replay::Transition& transition, float priority) {
                                  learner_.add_transition(transition, priority);
                                });
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error("a damaged message of transitions from rank " +
                             std::to_string(report.source) + ": " + e.what());
  }
  own_steps_ += static_cast<std::int64_t>(report.steps);
  count(report);
  lag_sum_ += static_cast<double>(version_ - report.acted_with);
  ++lag_count_;
  return true;
}

Advance ApexLearner::advance(std::int64_t until) {
  const agents::ApexOptions& apex = apex_options(options_);
  const std::int64_t total_steps = options_.train.total_steps;
  while (step_ < until && !stopping_) {
    // As fast as it can: what the actors have sent (at most a message each) before each
    // update. Else a message only while no update is due, so that the learner keeps the
    // replay ratio and the actors wait while it is behind.
    for (int k = 0;
         apex.steps_per_update == 0 && k < actors_.actors_running() && actors_.experience_waiting();
         ++k) {
      if (!receive_transitions()) return {step_, true};  // the actors are gone
    }
    if (!update_due() && !receive_transitions()) return {step_, true};
    // Every learner agrees after each message or update (so that stops and steps count while
    // a replay fills), and all update together once each is due.
    if (!agree(update_due()) || stopping_) continue;
    if (lag_count_ > 0) {
      metrics_.scalar(step_, "charts/policy_lag", lag_sum_ / lag_count_);
      lag_sum_ = 0.0;
      lag_count_ = 0;
    }
    report_learner_update(learner_.update({step_, total_steps}));
    ++updates_;
    if (version_ % apex.target_update_interval == 0) learner_.update_target();
    if (version_ % apex.broadcast_interval == 0) {
      actors_.send_parameters(links_.parameters, version_, step_);
    }
  }
  return {step_, stopping_ && step_ < total_steps};
}

std::int64_t run_apex_actor(const ExperimentOptions& options,
                            distributed::Communicator& communicator,
                            const Checkpoint* resume_from) {
  Actor actor = experiments::make_actor(
      options, communicator.rank(), resume_from, [](ExperimentOptions& mine) {
        agents::ApexOptions& apex = mine.hyperparameters<agents::ApexOptions>();
        apex.buffer_size = apex.batch_size;  // an actor keeps no replay: its transitions go on
      });
  const agents::ApexOptions& apex = actor.options.hyperparameters<agents::ApexOptions>();
  auto& dqn = dynamic_cast<agents::Dqn&>(*actor.agent);
  const int learners = options.distributed.learners;
  dqn.fix_epsilon(
      apex.actor_epsilon(communicator.rank() - learners, communicator.size() - learners));
  const envs::Space& observations = actor.envs->spec().observation_space;
  replay::TransitionRows rows(envs::flat_size(observations), 1);
  dqn.divert_transitions(
      [&rows](const replay::Transition& transition) { rows.append(transition); });
  torch::NoGradGuard no_grad;
  LearnerLink learner(communicator, experiments::layout_of(options.distributed, communicator),
                      dqn.parameters().detach(), apex.send_size * rows.row_floats(),
                      apex.queue_size, actor.first_step);
  replay::TransitionBatch batch;
  std::vector<float> priorities(static_cast<std::size_t>(apex.send_size));
  return experiments::act_until_stopped(
      learner, actor, resume_from, [&] { return rows.rows() >= apex.send_size; },
      [&](float* payload) {
        rows.gather(apex.send_size, envs::byte_scale(observations), batch);
        dqn.measure_td_errors(batch, priorities.data());
        rows.take(apex.send_size, priorities.data(), payload);
      });
}

using ApexKind = experiments::ActorsLearnersKindOf<ApexLearner, &run_apex_actor>;

MNRL_REGISTER_TOPOLOGY("apex_actors", ApexKind);

}  // namespace mnrl::topologies
