#include "topologies/impala/impala_learner.h"

#include <torch/utils.h>

#include "agents/impala/impala.h"
#include "distributed/communicator.h"
#include "experiments/training/actor_loop.h"

namespace mnrl::topologies {
namespace {

using experiments::Actor;
using experiments::Advance;
using experiments::Checkpoint;
using experiments::ExperimentOptions;
using experiments::LearnerLink;
using experiments::MetricsSink;

const agents::ImpalaOptions& impala_options(const ExperimentOptions& options) {
  return options.hyperparameters<agents::ImpalaOptions>();
}

// A learner's agent holds a batch of trajectories side by side in its rollout.
ExperimentOptions batch_options(const ExperimentOptions& options) {
  ExperimentOptions batch = options;
  batch.env.num_envs *= impala_options(options).batch_trajectories;
  return batch;
}

}  // namespace

ImpalaLearner::ImpalaLearner(const ExperimentOptions& options, MetricsSink& metrics,
                             distributed::Communicator& world,
                             std::unique_ptr<distributed::Communicator> learners)
    : LearnerTopology(options, batch_options(options), metrics, world, std::move(learners),
                      [&options](agents::Agent& agent, const envs::EnvSpec&) {
                        auto& impala = dynamic_cast<agents::Impala&>(agent);
                        return AgentLinks{impala.parameters().detach(),
                                          impala.trajectory_floats(options.env.num_envs)};
                      }),
      learner_(dynamic_cast<agents::Impala&>(*replica_.agent)) {}

bool ImpalaLearner::receive_batch() {
  const std::int64_t envs = options_.env.num_envs;
  const std::int64_t batch = impala_options(options_).batch_trajectories;
  batch_lag_ = 0.0;
  for (std::int64_t b = 0; b < batch; ++b) {
    const float* trajectory = actors_.receive();
    if (trajectory == nullptr) return false;
    learner_.unpack_trajectory(trajectory, envs, b * envs);
    count(actors_.report());
    batch_lag_ +=
        static_cast<double>(version_ - actors_.report().acted_with) / static_cast<double>(batch);
  }
  return true;
}

Advance ImpalaLearner::advance(std::int64_t until) {
  const std::int64_t total_steps = options_.train.total_steps;
  do {
    if (!receive_batch()) return {step_, true};  // the actors are gone
    agree();
    metrics_.scalar(step_, "charts/policy_lag", batch_lag_);
    report_learner_update(learner_.update({step_, total_steps}));
    if (!stopping_ && version_ % impala_options(options_).broadcast_interval == 0) {
      actors_.send_parameters(links_.parameters, version_, step_);
    }
  } while (step_ < until && !stopping_);
  return {step_, stopping_ && step_ < total_steps};
}

std::int64_t run_impala_actor(const ExperimentOptions& options,
                              distributed::Communicator& communicator,
                              const Checkpoint* resume_from) {
  Actor actor = experiments::make_actor(options, communicator.rank(), resume_from);
  auto& impala = dynamic_cast<agents::Impala&>(*actor.agent);
  torch::NoGradGuard no_grad;
  LearnerLink learner(communicator, experiments::layout_of(options.distributed, communicator),
                      impala.parameters().detach(),
                      impala.trajectory_floats(actor.envs->num_envs()),
                      impala_options(options).queue_size, actor.first_step);
  return experiments::act_until_stopped(
      learner, actor, resume_from, [&] { return impala.update_ready(); },
      [&](float* payload) { impala.pack_trajectory(payload); });
}

using ImpalaKind = experiments::ActorsLearnersKindOf<ImpalaLearner, &run_impala_actor>;

MNRL_REGISTER_TOPOLOGY("impala_actors", ImpalaKind);

}  // namespace mnrl::topologies
