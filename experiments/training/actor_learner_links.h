#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "envs/running_mean_std.h"
#include "experiments/training/episode_tally.h"

namespace mnrl::distributed {
class Communicator;
}

namespace mnrl::experiments {

struct ActorState;  // training_checkpoint.h

// The messages between the learners and the actors of an actors-and-learners job (IMPALA,
// Ape-X; ActorsLearnersLayout says which rank is which): point-to-point float tensors of fixed
// sizes, P = the number of parameters, F = the floats of the algorithm's payload (an IMPALA
// trajectory, a batch of Ape-X transitions). Versions and steps take two floats each (exact to
// 2^48).
//  - experience, actor -> learner (tag 3): [payload (F) | observation statistics (S) | env
//    steps, episodes ended, their return sum, their length sum, 1 if this rank was asked to
//    stop, the parameter version it acted with, 1 if its state follows, 1 if final]; where the
//    envs normalize observations, S = 2 n + 2 for observations of n elements: the actor's
//    running mean and variance of each and their count (two floats), else none;
//  - parameters, learner -> actor (tag 4): [parameters (P) | 1 to stop, their version, the
//    global step];
//  - state request, learner -> actor (tag 5): [1];
//  - state, actor -> learner (tag 6): its length, then its bytes (distributed::send_bytes).
// Protocol:
//  1. Start: rank 0 broadcasts the initial (or resumed) parameters to every rank (the one
//     collective the actors take part in).
//  2. An actor takes the newest parameters its learner has sent before each payload, and sends
//     payloads to it without waiting unless queue_size of them are still in flight.
//  3. A learner receives its actors' payloads in arrival order; it sends parameters to each of
//     them that has taken the previous ones.
//  4. For a checkpoint, a learner sends each of its actors a state request. An actor that
//     takes one sends its next payload saying that its state follows, then its state (as it
//     stands after that payload). The learner keeps the experience that arrives meanwhile for
//     later, so the actors never wait on a full queue while it collects.
//  5. Once it stops (after a last step 4 where a final checkpoint follows), a learner sends
//     each of its actors the stop flag, then receives (and drops) experience until each one's
//     final message.
// Each actor normalizes observations with its own running statistics; a learner merges the
// latest of each of its actors into its own (what it evaluates, checkpoints and exports with).
// Several learners average their gradients and agree on the steps taken, the episodes seen,
// whether to stop and whether to update (LearnerGroup), among themselves.
// A failing rank aborts the job (mnrl train), so no rank waits forever for a message.
// A rank running another config or mnrl sends messages of other sizes: receive() then fails
// naming the sizes.

// Ranks [0, learners) learn (rank 0 also evaluates and writes the checkpoints), every other
// rank acts for learner (rank - learners) % learners.
struct ActorsLearnersLayout {
  int learners = 1;
  int ranks = 2;

  bool learns(int rank) const { return rank < learners; }
  int learner_of(int actor) const { return (actor - learners) % learners; }
  std::vector<int> actors_of(int learner) const {
    std::vector<int> actors;
    for (int rank = learners + learner; rank < ranks; rank += learners) actors.push_back(rank);
    return actors;
  }
};

// What an actor reports with each payload.
struct ExperienceReport {
  double steps = 0, episodes = 0, return_sum = 0, length_sum = 0;
  bool stop_requested = false;  // Ctrl-C / SIGTERM reached the actor
  std::int64_t acted_with = 0;  // the parameter version it acted with
  bool state_follows = false;   // the actor's state comes next (protocol step 4)
  int source = 0;               // the actor's rank
};

// A learner's end, talking to its actors.
class ActorsLink {
 public:
  ActorsLink(distributed::Communicator& communicator, const ActorsLearnersLayout& layout,
             std::int64_t payload_floats);

  // Where the envs normalize observations: `statistics` (the learner envs') become the merge
  // of the latest statistics each actor sent, after each message. Before the first receive().
  void merge_observation_statistics_into(std::shared_ptr<envs::RunningMeanStd> statistics);

  int actors_running() const { return actors_running_; }
  // Protocol step 1.
  void share_initial(at::Tensor parameters);
  // The next payload (protocol step 3), valid until the next receive(), and its report in
  // report(); null once every actor has sent its final message.
  const float* receive();
  // Protocol step 4: every actor's state, in the order they arrive; none once an actor has
  // sent its final message. Receives only from the actors yet to answer (the others wait on
  // their full queues, so what is kept stays bounded). Throws std::runtime_error naming the
  // actors that have sent nothing for `timeout_seconds` (distributed.timeout: stopped or hung).
  std::vector<ActorState> collect_states(double timeout_seconds);
  const ExperienceReport& report() const { return report_; }
  // Seconds receive() has spent waiting for a message so far.
  double waited_seconds() const { return waited_seconds_; }
  // Whether an actor's experience is waiting, so that receive() would not wait (actors send
  // to their own learner only).
  bool experience_waiting();
  // Sends `parameters` to every actor that has taken the previous ones.
  void send_parameters(const at::Tensor& parameters, std::int64_t version, std::int64_t step);
  // Protocol step 5; returns once every actor has sent its final message.
  void stop(const at::Tensor& parameters, std::int64_t version, std::int64_t step);

 private:
  void send(const at::Tensor& parameters, std::int64_t version, std::int64_t step, bool stop);
  // Receives the next message from `source` (or any actor) into `message` and reads its report
  // into `report`; false for a final message.
  bool receive_message(int source, at::Tensor& message, ExperienceReport& report);

  struct Experience {
    at::Tensor message;
    ExperienceReport report;
  };

  std::int64_t message_floats() const;
  // From a message of `actor`: its observation statistics, merged into statistics_.
  void merge_statistics(int actor, const float* sent);

  distributed::Communicator& communicator_;
  std::vector<int> actors_;
  std::int64_t payload_floats_;
  std::shared_ptr<envs::RunningMeanStd> statistics_;      // null: no normalized observations
  std::map<int, envs::RunningMeanStd> actor_statistics_;  // the latest each actor sent
  at::Tensor message_;  // the experience being read
  ExperienceReport report_;
  std::deque<Experience> kept_;  // what arrived while collect_states() waited, oldest first
  int actors_running_;
  double waited_seconds_ = 0.0;
};

// An actor's end, talking to its learner.
class LearnerLink {
 public:
  // `parameters`: the actor's policy parameters, replaced in place by what the learner sends;
  // `first_step`: the global step training starts from.
  LearnerLink(distributed::Communicator& communicator, const ActorsLearnersLayout& layout,
              at::Tensor parameters, std::int64_t payload_floats, std::int64_t queue_size,
              std::int64_t first_step);

  int rank() const;
  const ActorsLearnersLayout& layout() const { return layout_; }
  // Where the actor's envs normalize observations: `statistics`, sent with every message from
  // then on (act_until_stopped attaches them before the first).
  void send_observation_statistics(const envs::RunningMeanStd& statistics) {
    statistics_ = &statistics;
  }
  // Protocol step 1.
  void share_initial();
  // Takes the newest parameters the learner has sent (protocol step 2); false once it said
  // stop (the parameters then stay as they were).
  bool take_parameters();
  // The global step the learner last reported.
  std::int64_t global_step() const { return global_step_; }
  // Whether the learner asks for this actor's state (protocol step 4; once per request).
  bool state_requested();
  // A fresh payload to fill, then send() (which may wait for the queue); `state_follows`: the
  // actor sends its state next, with send_state().
  float* next_payload();
  void send(const EpisodeTally& tally, bool state_follows = false);
  void send_state(const std::string& state);
  // The final message, once take_parameters() said stop; returns once it is delivered.
  void finish();

 private:
  distributed::Communicator& communicator_;
  const ActorsLearnersLayout layout_;
  int learner_;
  std::int64_t message_floats() const;

  at::Tensor parameters_, received_, outgoing_;
  std::int64_t payload_floats_, queue_size_;
  const envs::RunningMeanStd* statistics_ = nullptr;
  std::int64_t version_ = 0;
  std::int64_t global_step_ = 0;
};

// The learners of a job, which take their updates in lockstep: null `learners` for one.
class LearnerGroup {
 public:
  explicit LearnerGroup(distributed::Communicator* learners) : learners_(learners) {}

  // What one learner brings to an agreement, and what all of them agree on: the env steps and
  // the episodes their actors reported since the last one, whether one was asked to stop, and
  // whether every one is ready to update.
  struct Round {
    std::int64_t steps = 0;
    EpisodeTally episodes;  // its steps unused
    bool stop = false;
    bool ready = true;
  };
  // Collective among the learners (every one calls it as often).
  Round agree(const Round& mine);

 private:
  distributed::Communicator* learners_;
};

}  // namespace mnrl::experiments
