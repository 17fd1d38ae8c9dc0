#pragma once

#include <memory>
#include <optional>

#include "experiments/config/experiment_options.h"
#include "experiments/training/learner_topology.h"
#include "topologies/apex/apex_experience.h"

namespace mnrl::agents {
struct ApexOptions;
struct ApexR2d2Options;
}  // namespace mnrl::agents

namespace mnrl::topologies {

// Ape-X across the processes of an mpirun job, for DQN (Options: agents::ApexOptions, items:
// n-step transitions) and R2D2 (agents::ApexR2d2Options, items: sequences): distributed.learners
// ranks learn, every other rank acts, talking as actor_learner_links.h says. Actor i of N
// explores with its own epsilon (ApexActorOptions::actor_epsilon), turns its steps into items,
// measures each one's priority with its copy of the network and sends them send_size at a time
// (ApexExperience). A learner adds them to its prioritized replay with those priorities, and
// once it holds Options::warm_items() of them samples it, takes the algorithm's steps and
// writes the new priorities back; it copies the target network every target_update_interval
// updates and sends the parameters every broadcast_interval updates.
// Several learners each keep the replay of their own actors, average their gradients and
// agree after each message or update (so that steps and stops count while a replay fills);
// they update together once each can.
// With steps_per_update k > 0 a learner takes one update per k env steps its actors sent
// (counted from when its replay was ready), receiving only while no update is due (the actors
// wait while it is behind: their queues are bounded); with 0, before each update it takes what
// the actors have sent (at most one message each, so that neither side starves the other).
//
// Checkpoints hold the learners' states (the networks, the optimizer, the step, the evaluation
// envs and, with checkpoint.replay_buffer, the replay with its priorities) and the actors'
// (actor_loop.h), each as it stood after the items it sent with it; the items still on their
// way, and those an actor had made but not yet sent (fewer than a message), are not kept.
//
// Registered as topologies "apex_actors" (Ape-X DQN) and "apex_r2d2_actors".
template <class Options>
class ApexLearner final : public experiments::LearnerTopology {
 public:
  // A learner rank of `world` (layout_of); `learners`: the learners' communicator where there
  // are several (distributed.learners), else null.
  ApexLearner(const experiments::ExperimentOptions& options, experiments::MetricsSink& metrics,
              distributed::Communicator& world,
              std::unique_ptr<distributed::Communicator> learners);

  experiments::Advance advance(std::int64_t until) override;

 private:
  // Receives one message of items into the replay; false once every actor has sent its final
  // message.
  bool receive_items();
  // The updates steps_per_update allows so far.
  std::int64_t updates_allowed() const;
  // Whether this learner may update now: its replay holds warm_items(), and steps_per_update
  // allows one more.
  bool update_due();

  const Options& apex_;
  std::unique_ptr<ApexExperience> experience_;  // the learner's side of its agent
  std::int64_t own_steps_ = 0;              // this learner's actors' env steps, since it started
  std::optional<std::int64_t> ratio_from_;  // own_steps_ when the replay was first ready
  std::int64_t updates_ = 0;                // taken since then
  double lag_sum_ = 0.0;                    // of the messages received since the last update
  int lag_count_ = 0;
};

extern template class ApexLearner<agents::ApexOptions>;
extern template class ApexLearner<agents::ApexR2d2Options>;

// An actor rank of an Ape-X job: acts until its learner says stop; returns the global step it
// last reported. `resume_from`: the checkpoint the learners resume from, or null.
template <class Options>
std::int64_t run_apex_actor(const experiments::ExperimentOptions& options,
                            distributed::Communicator& communicator,
                            const experiments::Checkpoint* resume_from);

}  // namespace mnrl::topologies
