#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "agents/apex/apex_actor_options.h"
#include "agents/dqn/dqn_options.h"
#include "core/config.h"

namespace mnrl::agents {

// Ape-X DQN (Horgan et al. 2018): actor ranks act epsilon-greedily, each with its own epsilon,
// turn their steps into n-step transitions, give each the priority |TD error| under their copy
// of the network, and send them send_size at a time to the learner's prioritized replay. The
// learner samples it, takes Double DQN steps, writes the new priorities back and sends the
// parameters to the actors every broadcast_interval updates. The YAML keys of the `apex_dqn:`
// section are these field names; defaults are the paper's (Adam for its RMSProp, at DQN's
// default step size).
struct ApexOptions {
  double learning_rate = 1e-4;            // Adam step size at the start
  std::string lr_schedule = "constant";   // constant | linear (decays to 0 at the end)
  std::int64_t buffer_size = 2'000'000;   // the learner's replay capacity in transitions
  std::int64_t learning_starts = 50'000;  // transitions in the replay before the first update
  std::int64_t batch_size = 512;          // transitions per gradient step
  double gamma = 0.99;                    // discount
  int n_step = 3;                         // n-step returns
  bool double_q = true;                   // Double DQN targets
  std::string loss = "huber";             // huber | mse
  double max_grad_norm = 40.0;            // global gradient-norm clip
  double per_alpha = 0.6;                 // priority exponent
  double per_beta0 = 0.4;                 // importance-sampling exponent, annealed to 1
  double per_eps = 1e-6;                  // added to |TD error|
  std::int64_t target_update_interval = 2500;  // learner updates between target copies
  ApexActorOptions actors;  // the actors' keys (steps_per_update, epsilon, send_size, ...)
  // The return's distribution (C51, QR-DQN, IQN) and noisy nets, as DQN's keys. With noisy
  // nets the actors still add their epsilons (epsilon: 0 leaves the noise alone).
  ReturnDistributionOptions distribution;

  // The learner's replay is ready to sample once it holds this many transitions (DQN's
  // warm-up: a replay smaller than learning_starts learns once it is full).
  std::int64_t warm_items() const {
    return std::max(std::min(learning_starts, buffer_size), batch_size);
  }

  // An actor keeps no replay: its transitions go on to the learner.
  void as_actor(std::int64_t) { buffer_size = batch_size; }

  // The DQN agent's options: every transition prioritized, a fixed epsilon (Dqn::fix_epsilon)
  // and, in one process (acting and learning in turn), an update every steps_per_update env
  // steps rounded to whole vector steps (at least one), target copies every
  // target_update_interval of those updates.
  DqnOptions dqn(std::int64_t num_envs) const {
    DqnOptions dqn;
    dqn.learning_rate = learning_rate;
    dqn.lr_schedule = lr_schedule;
    dqn.buffer_size = buffer_size;
    dqn.learning_starts = learning_starts;
    dqn.batch_size = batch_size;
    dqn.gamma = gamma;
    dqn.n_step = n_step;
    dqn.double_q = double_q;
    dqn.loss = loss;
    dqn.max_grad_norm = max_grad_norm;
    dqn.prioritized = true;
    dqn.per_alpha = per_alpha;
    dqn.per_beta0 = per_beta0;
    dqn.per_eps = per_eps;
    dqn.distribution = distribution;
    dqn.tau = 1.0;
    dqn.gradient_steps = 1;
    dqn.train_freq = actors.train_freq(num_envs);
    dqn.target_update_interval = target_update_interval * dqn.train_freq * num_envs;
    return dqn;
  }

  void visit(core::ConfigVisitor& v) {
    v.learning_rate(learning_rate, lr_schedule, "Adam step size", core::greater_than(0));
    v.field("buffer_size", buffer_size, "the learner's replay capacity (transitions)",
            core::at_least(1));
    v.field("learning_starts", learning_starts, "transitions stored before learning",
            core::at_least(0));
    v.field("batch_size", batch_size, "transitions per gradient step", core::at_least(1));
    v.field("gamma", gamma, "discount factor", core::between(0, 1));
    v.field("n_step", n_step, "n-step returns", core::at_least(1));
    v.field("double_q", double_q, "Double DQN targets");
    v.field("loss", loss, "TD loss", core::one_of({"huber", "mse"}));
    v.field("max_grad_norm", max_grad_norm, "gradient-norm clip", core::greater_than(0));
    v.field("per_alpha", per_alpha, "priority exponent", core::between(0, 1));
    v.field("per_beta0", per_beta0, "initial importance-sampling exponent", core::between(0, 1));
    v.field("per_eps", per_eps, "added to |TD error| for priorities", core::greater_than(0));
    v.field("target_update_interval", target_update_interval,
            "learner updates between target network copies", core::at_least(1));
    actors.visit(v, "transitions per message to the learner");
    distribution.visit(v);
  }
};

}  // namespace mnrl::agents
