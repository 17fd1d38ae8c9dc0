#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "experiments/config/experiment_options.h"
#include "experiments/training/actor_learner_links.h"
#include "experiments/training/agent_factory.h"
#include "experiments/training/topology.h"
#include "experiments/training/topology_registry.h"
#include "experiments/training/worker_envs.h"

namespace mnrl::experiments {

// Which ranks of `world` learn and which act, from distributed.learners.
ActorsLearnersLayout layout_of(const DistributedOptions& distributed,
                               const distributed::Communicator& world);

// What the learners of IMPALA and Ape-X share: a learner rank of an actors-and-learners job,
// its agent (gradients averaged over the learners where there are several), its link to its
// actors, the steps and the stop agreed among the learners, and what a checkpoint holds: every
// learner's agent and (never stepped) envs, whose observation statistics (where normalized)
// are its actors' merged, and every actor's state (collected from the actors
// at each checkpoint, and before they stop for a final one); rank 0 alone evaluates. Subclasses
// receive their payloads and update in advance().
class LearnerTopology : public TrainingTopology {
 public:
  ~LearnerTopology() override;

  MetricsSink& metrics() override { return metrics_; }
  const TrainingParts& parts() const override { return parts_; }
  bool leader() const override { return leader_; }
  // Resets the learner's envs (the actors' envs are theirs).
  void start_episodes(std::optional<std::int64_t>) override { learner_envs_.envs->reset(); }
  void begin(const TrainingClock& clock) override;
  void prepare_final_checkpoint() override;
  std::int64_t end(std::int64_t step) override;
  bool agree_with_leader(bool decision) override;
  agents::Agent& evaluation_agent() override { return *replica_.agent; }

 protected:
  // What the links need of the learner's agent: its flat parameters (its own tensor, not a
  // copy) and the floats of one actor's message.
  struct AgentLinks {
    at::Tensor parameters;
    std::int64_t payload_floats = 0;
  };
  using DescribeAgent = std::function<AgentLinks(agents::Agent&, const envs::EnvSpec&)>;

  // `agent_options`: what the learner's agent is made of (`options`, or a wider rollout);
  // `learners`: the learners' communicator where there are several, else null.
  LearnerTopology(const ExperimentOptions& options, const ExperimentOptions& agent_options,
                  MetricsSink& metrics, distributed::Communicator& world,
                  std::unique_ptr<distributed::Communicator> learners,
                  const DescribeAgent& describe);

  // Notes what an actor's message reported: its steps, its episodes, a stop asked for there.
  void count(const ExperienceReport& report);
  // Agrees with the other learners on the steps and episodes their actors reported since the
  // last agreement (step_; the episodes are logged) and on stopping (stopping_: also once the
  // budget is spent). Returns whether every learner is `ready` to update. Every learner calls
  // it as often: before each update, and after each message while it cannot update yet.
  bool agree(bool ready = true);
  // After an update: its statistics and the learner's rates, at step_.
  void report_learner_update(const agents::Statistics& statistics);

  const ExperimentOptions options_;
  MetricsSink& metrics_;
  const bool leader_;  // rank 0: evaluates and writes the checkpoints
  std::unique_ptr<distributed::Communicator> learners_communicator_;
  LearnerGroup learners_;
  LearnerEnvs learner_envs_;
  ReplicatedAgent replica_;
  AgentLinks links_;
  ActorsLink actors_;
  TrainingParts parts_;
  TrainingClock clock_;
  std::int64_t step_ = 0;     // agreed among the learners
  LearnerGroup::Round mine_;  // what this learner's actors reported since the last agreement
  std::int64_t version_ = 0;  // updates taken by this process
  bool stopping_ = false;     // agreed: the budget is spent or a stop was asked for

 private:
  // Before the actors stop, where a final checkpoint follows: the states they sent last.
  std::optional<std::vector<ActorState>> final_actor_states_;
};

// The kind of an actors-and-learners algorithm (IMPALA, Ape-X): under mpirun,
// distributed.learners learner ranks (a LearnerTopology each) fed by every other rank, its
// actors; in one process, one agent acting and learning in turn (Replicas).
class ActorsLearnersKind : public TopologyKind {
 public:
  bool has_learners() const override { return true; }
  // An actor for each learner: at least 2 * distributed.learners ranks.
  void check_ranks(const ExperimentOptions& options,
                   const distributed::Communicator& world) const override;
  RankRoles rank_roles(const ExperimentOptions& options) const override {
    return {options.distributed.learners, "learner", "actor"};
  }
  std::unique_ptr<TrainingTopology> make(const ExperimentOptions& options, MetricsSink& metrics,
                                         distributed::Communicator* communicator) const final;
  std::int64_t run_rank(const ExperimentOptions& options, distributed::Communicator& communicator,
                        const Checkpoint* resume_from) const final {
    return run_actor(options, communicator, resume_from);
  }

 protected:
  // A learner rank of `world` (layout_of); `learners`: the learners' communicator where there
  // are several, else null.
  virtual std::unique_ptr<LearnerTopology> make_learner(
      const ExperimentOptions& options, MetricsSink& metrics, distributed::Communicator& world,
      std::unique_ptr<distributed::Communicator> learners) const = 0;
  // An actor rank: acts until its learner says stop (act_until_stopped); returns the global
  // step it last reported.
  virtual std::int64_t run_actor(const ExperimentOptions& options,
                                 distributed::Communicator& communicator,
                                 const Checkpoint* resume_from) const = 0;
};

// The kind whose learner ranks run `Learner` (constructed as ImpalaLearner is: options,
// metrics, world, learners) and whose actor ranks run `run_actor_rank`.
template <class Learner, auto run_actor_rank>
class ActorsLearnersKindOf final : public ActorsLearnersKind {
 protected:
  std::unique_ptr<LearnerTopology> make_learner(
      const ExperimentOptions& options, MetricsSink& metrics, distributed::Communicator& world,
      std::unique_ptr<distributed::Communicator> learners) const override {
    return std::make_unique<Learner>(options, metrics, world, std::move(learners));
  }
  std::int64_t run_actor(const ExperimentOptions& options, distributed::Communicator& communicator,
                         const Checkpoint* resume_from) const override {
    return run_actor_rank(options, communicator, resume_from);
  }
};

}  // namespace mnrl::experiments
