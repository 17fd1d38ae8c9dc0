#include "experiments/training/apex_learner.h"

#include <torch/utils.h>

#include <algorithm>
#include <vector>

#include "agents/apex/apex_options.h"
#include "agents/dqn/dqn.h"
#include "distributed/communicator.h"
#include "experiments/training/agent_factory.h"
#include "experiments/training/env_stepper.h"
#include "replay/transition_rows.h"

namespace mnrl::experiments {
namespace {

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

void ApexLearner::begin(const TrainingClock& clock) {
  LearnerTopology::begin(clock);
  // This learner's share of the steps so far.
  own_steps_ = step_ / options_.distributed.learners;
  updates_ = updates_allowed(own_steps_);
}

std::int64_t ApexLearner::updates_allowed(std::int64_t steps) const {
  const agents::ApexOptions& apex = apex_options(options_);
  if (apex.steps_per_update == 0) return 0;  // unbounded
  return std::max<std::int64_t>(0, steps - apex.learning_starts) / apex.steps_per_update;
}

bool ApexLearner::update_due() const {
  const agents::ApexOptions& apex = apex_options(options_);
  if (learner_.replay_size() < std::max(apex.learning_starts, apex.batch_size)) return false;
  return apex.steps_per_update == 0 || updates_ < updates_allowed(own_steps_);
}

bool ApexLearner::receive_transitions() {
  const float* payload = actors_.receive();
  if (payload == nullptr) return false;
  const envs::EnvSpec& spec = learner_envs_.envs->spec();
  replay::for_each_transition(
      payload, apex_options(options_).send_size, envs::flat_size(spec.observation_space), 1,
      envs::element_dtype(spec.observation_space),
      [this](const replay::Transition& transition, float priority) {
        learner_.add_transition(transition, priority);
      });
  const ExperienceReport& report = actors_.report();
  own_steps_ += static_cast<std::int64_t>(report.steps);
  count(report);
  lag_sum_ += static_cast<double>(version_) - report.acted_with;
  ++lag_count_;
  return true;
}

Advance ApexLearner::advance(std::int64_t until) {
  const agents::ApexOptions& apex = apex_options(options_);
  const std::int64_t total_steps = options_.train.total_steps;
  while (step_ < until && !stopping_) {
    // As fast as it can: what the actors have sent (at most a message each) before each
    // update. Else only while no update is due, so that the learner keeps the replay ratio
    // and the actors wait while it is behind.
    bool open = true;
    for (int k = 0; apex.steps_per_update == 0 && open && k < actors_.actors_running() &&
                    actors_.experience_waiting();
         ++k) {
      open = receive_transitions();
    }
    while (open && !update_due()) open = receive_transitions();
    if (!open) break;
    agree();
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
                            std::optional<std::int64_t> resumed_at) {
  set_compute_threads(options.train.threads);
  auto [mine, envs] = make_worker_envs(options, communicator.rank(), resumed_at);
  agents::ApexOptions& apex = mine.hyperparameters<agents::ApexOptions>();
  apex.buffer_size = apex.batch_size;  // an actor keeps no replay: its transitions go on
  auto agent = make_agent(mine, envs->spec());
  auto& dqn = dynamic_cast<agents::Dqn&>(*agent);
  const int learners = options.distributed.learners;
  dqn.fix_epsilon(apex.actor_epsilon(communicator.rank() - learners, communicator.size() - learners));
  const envs::Space& observations = envs->spec().observation_space;
  replay::TransitionRows rows(envs::flat_size(observations), 1);
  dqn.divert_transitions([&rows](const replay::Transition& transition) { rows.append(transition); });
  torch::NoGradGuard no_grad;
  LearnerLink learner(communicator, layout_of(options, communicator), dqn.parameters().detach(),
                      apex.send_size * rows.row_floats(), apex.queue_size,
                      resumed_at.value_or(0));
  learner.share_initial();
  replay::TransitionBatch batch;
  std::vector<float> priorities(static_cast<std::size_t>(apex.send_size));
  EpisodeTally tally;
  envs->reset();
  EnvStepper stepper(*agent, *envs);
  while (learner.take_parameters()) {
    while (rows.rows() < apex.send_size) {
      stepper.step();
      tally.steps += stepper.num_envs();
      stepper.report_episodes(tally, 0);
    }
    rows.gather(apex.send_size, envs::byte_scale(observations), batch);
    dqn.measure_td_errors(batch, priorities.data());
    rows.take(apex.send_size, priorities.data(), learner.next_payload());
    learner.send(tally);
    tally = EpisodeTally();
  }
  learner.finish();
  return learner.global_step();
}

}  // namespace mnrl::experiments
