#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>

#include "core/config.h"

namespace mnrl::agents {

// What Ape-X's actors and their traffic with the learner are made of (Horgan et al. 2018),
// shared by Ape-X DQN (items: n-step transitions) and R2D2 (items: sequences). Actor i of N
// explores with its own fixed epsilon; it sends its items send_size at a time, each with the
// priority its copy of the network gives it; the learner sends the parameters every
// broadcast_interval updates. The keys sit in the algorithm's section.
struct ApexActorOptions {
  // Env steps the actors send per learner update at most: 0, as fast as the learner can (the
  // paper); k > 0 bounds the learner to one update per k env steps received, DQN's replay
  // ratio, so that a budget of env steps means the same on any machine.
  std::int64_t steps_per_update = 0;
  double epsilon = 0.4;         // actor i of N explores with epsilon^(1 + epsilon_alpha i/(N-1))
  double epsilon_alpha = 7.0;   // (one actor: epsilon)
  std::int64_t send_size = 50;  // items per message to the learner
  std::int64_t broadcast_interval = 50;  // learner updates between sending the parameters
  std::int64_t queue_size = 4;           // messages an actor may have in flight

  // Actor `actor` (0-based) of `actors`' epsilon.
  double actor_epsilon(int actor, int actors) const {
    if (actors <= 1) return epsilon;
    return std::pow(epsilon, 1.0 + epsilon_alpha * actor / (actors - 1));
  }

  // In one process (acting and learning in turn): vector-env steps between updates, the
  // steps_per_update rounded to whole vector steps (at least one).
  std::int64_t train_freq(std::int64_t num_envs) const {
    return std::max<std::int64_t>(1, steps_per_update / num_envs);
  }

  // `send_size_help`: what a message carries, e.g. "transitions per message to the learner".
  void visit(core::ConfigVisitor& v, std::string_view send_size_help) {
    v.field("steps_per_update", steps_per_update,
            "env steps received per learner update at most; 0 = as fast as it can",
            core::at_least(0));
    v.field("epsilon", epsilon, "base of the actors' epsilons", core::between(0, 1));
    v.field("epsilon_alpha", epsilon_alpha, "spread of the actors' epsilons", core::at_least(0));
    v.field("send_size", send_size, send_size_help, core::at_least(1));
    v.field("broadcast_interval", broadcast_interval,
            "learner updates between sending the parameters to the actors", core::at_least(1));
    v.field("queue_size", queue_size,
            "messages an actor may have in flight before it waits for the learner",
            core::at_least(1));
  }
};

}  // namespace mnrl::agents
