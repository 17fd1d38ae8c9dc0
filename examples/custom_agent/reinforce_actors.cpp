// REINFORCE's own topology of actors and learners, built on mnrl's actor/learner pieces
// (experiments/training/learner_topology.h, actor_loop.h) without a change to mnrl: under
// `mpirun -np N`, ranks [0, distributed.learners) learn and the others act. An actor steps its
// envs with its copy of the policy and sends reinforce.send_steps finished steps at a time
// (returns-to-go computed where the episode ended, its last step marked); its learner puts
// each actor's steps together into whole episodes and, once it holds
// reinforce.episodes_per_update of them, takes one gradient step on them (the update of one
// process) and sends the new parameters back. In one process, REINFORCE as before.
#include <torch/utils.h>

#include <map>
#include <vector>

#include "distributed/communicator.h"
#include "experiments/training/actor_loop.h"
#include "experiments/training/learner_topology.h"
#include "reinforce.h"

namespace reinforce {
namespace {

using mnrl::experiments::ExperimentOptions;

// Messages of an actor's finished steps waiting for its learner at most.
constexpr std::int64_t kQueueSize = 1;

std::int64_t send_steps(const ExperimentOptions& options) {
  return options.hyperparameters<ReinforceOptions>().send_steps;
}

class ReinforceLearner final : public mnrl::experiments::LearnerTopology {
 public:
  ReinforceLearner(const ExperimentOptions& options, mnrl::experiments::MetricsSink& metrics,
                   mnrl::distributed::Communicator& world,
                   std::unique_ptr<mnrl::distributed::Communicator> learners)
      : LearnerTopology(options, options, metrics, world, std::move(learners),
                        [&options](mnrl::agents::Agent& agent, const mnrl::envs::EnvSpec&) {
                          auto& reinforce = dynamic_cast<Reinforce&>(agent);
                          return AgentLinks{reinforce.parameters().detach(),
                                            send_steps(options) * reinforce.step_floats()};
                        }),
        learner_(dynamic_cast<Reinforce&>(*replica_.agent)) {}

  mnrl::experiments::Advance advance(std::int64_t until) override {
    const std::int64_t total_steps = options_.train.total_steps;
    do {
      const float* steps = actors_.receive();
      if (steps == nullptr) return {step_, true};  // the actors are gone
      take_whole_episodes(steps);
      count(actors_.report());
      lag_sum_ += static_cast<double>(version_ - actors_.report().acted_with);
      ++messages_;
      agree();
      if (!learner_.update_ready()) continue;
      // The updates the messages' steps lag behind, as IMPALA reports it.
      metrics_.scalar(step_, "charts/policy_lag", lag_sum_ / static_cast<double>(messages_));
      lag_sum_ = 0.0;
      messages_ = 0;
      report_learner_update(learner_.update({step_, total_steps}));
      if (!stopping_) actors_.send_parameters(links_.parameters, version_, step_);
    } while (step_ < until && !stopping_);
    return {step_, stopping_ && step_ < total_steps};
  }

 private:
  // Adds a message's steps to its actor's episode in progress and gives the learner the
  // episodes that are whole. (A checkpoint keeps neither these nor the messages in flight, as
  // IMPALA's keeps no trajectory in flight.)
  void take_whole_episodes(const float* steps) {
    std::vector<float>& rows = partial_[actors_.report().source];
    rows.insert(rows.end(), steps, steps + links_.payload_floats);
    const std::int64_t width = learner_.step_floats();
    const std::int64_t taken =
        learner_.take_whole_episodes(rows.data(), static_cast<std::int64_t>(rows.size()) / width);
    rows.erase(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(taken * width));
  }

  Reinforce& learner_;
  std::map<int, std::vector<float>> partial_;  // each actor's steps of an unfinished episode
  double lag_sum_ = 0.0;  // of the messages since the last update
  int messages_ = 0;
};

class ReinforceActorsKind final : public mnrl::experiments::ActorsLearnersKind {
 protected:
  std::unique_ptr<mnrl::experiments::LearnerTopology> make_learner(
      const ExperimentOptions& options, mnrl::experiments::MetricsSink& metrics,
      mnrl::distributed::Communicator& world,
      std::unique_ptr<mnrl::distributed::Communicator> learners) const override {
    return std::make_unique<ReinforceLearner>(options, metrics, world, std::move(learners));
  }

  std::int64_t run_actor(const ExperimentOptions& options,
                         mnrl::distributed::Communicator& communicator,
                         const mnrl::experiments::Checkpoint* resume_from) const override {
    mnrl::experiments::Actor actor =
        mnrl::experiments::make_actor(options, communicator.rank(), resume_from);
    auto& agent = dynamic_cast<Reinforce&>(*actor.agent);
    const std::int64_t steps = send_steps(options);
    torch::NoGradGuard no_grad;
    mnrl::experiments::LearnerLink learner(
        communicator, mnrl::experiments::layout_of(options.distributed, communicator),
        agent.parameters().detach(), steps * agent.step_floats(), kQueueSize, actor.first_step);
    return mnrl::experiments::act_until_stopped(
        learner, actor, resume_from, [&] { return agent.finished_steps() >= steps; },
        [&](float* payload) { agent.take_finished_steps(steps, payload); });
  }
};

}  // namespace

MNRL_REGISTER_TOPOLOGY("reinforce_actors", ReinforceActorsKind);

}  // namespace reinforce
