#pragma once

#include <algorithm>
#include <cstdint>

#include "agents/apex/apex_actor_options.h"
#include "agents/r2d2/r2d2_options.h"
#include "core/config.h"

namespace mnrl::agents {

// R2D2 as its paper runs it (Kapturowski et al. 2019): Ape-X's actors and learner, with
// sequences for transitions. Actor ranks act with a recurrent Q-network and their own fixed
// epsilons, cut their steps into sequences (each with the memory before its first step), give
// each the priority R2D2's loss measures under their copy of the network, and send them
// send_size at a time; the learner keeps them in its prioritized sequence replay and learns as
// R2D2 does. The keys of the `apex_r2d2:` section are R2D2's learning keys (R2d2Options, the
// paper's defaults) and the actors' (ApexActorOptions).
struct ApexR2d2Options {
  R2d2Options r2d2;         // the learner's keys (visit_learning)
  ApexActorOptions actors;  // the actors' keys

  ApexR2d2Options() { actors.send_size = 16; }  // sequences of burn_in + seq_len steps each

  // The learner's replay is ready to sample once it holds the sequences learning_starts env
  // steps make (at least a batch, at most a full replay).
  std::int64_t warm_items() const {
    return std::max(std::min(r2d2.learning_starts / r2d2.sequence_period(), r2d2.buffer_size),
                    r2d2.batch_size);
  }

  // An actor's replay is its outbox: room for a message and one more vector step's sequences.
  void as_actor(std::int64_t num_envs) {
    r2d2.buffer_size = actors.send_size + num_envs;
    r2d2.batch_size = std::min(r2d2.batch_size, r2d2.buffer_size);
  }

  // The R2D2 agent's options: a fixed epsilon (R2d2::fix_epsilon) and, in one process (acting
  // and learning in turn), one gradient step every steps_per_update env steps rounded to whole
  // vector steps (at least one).
  R2d2Options agent(std::int64_t num_envs) const {
    R2d2Options agent = r2d2;
    agent.train_freq = actors.train_freq(num_envs);
    agent.gradient_steps = 1;
    return agent;
  }

  void visit(core::ConfigVisitor& v) {
    r2d2.visit_learning(v);
    actors.visit(v, "sequences per message to the learner");
  }
};

}  // namespace mnrl::agents
