#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "experiments/config/experiment_options.h"

namespace mnrl::agents {
class Agent;
}
namespace mnrl::envs {
class VectorEnv;
}

namespace mnrl::experiments {

class Checkpoint;
class LearnerLink;

// An actor rank of IMPALA or Ape-X: its options (its own seed; on the CPU, whatever device the
// learners train on), envs (make_worker_envs: seeded by the step after a resume from
// `resume_from`) and agent, made from the options as `adjust` changes them.
struct Actor {
  ExperimentOptions options;
  std::unique_ptr<envs::VectorEnv> envs;
  std::unique_ptr<agents::Agent> agent;
  std::int64_t first_step = 0;  // the global step training starts from (after a resume)
};
Actor make_actor(const ExperimentOptions& options, int rank, const Checkpoint* resume_from,
                 const std::function<void(ExperimentOptions&)>& adjust = nullptr);

// What a checkpoint keeps of an actor rank of IMPALA or Ape-X: its agent (its exploration
// draws; the learner's parameters replace its own when it starts), its envs' episodes and
// LibTorch's generator (its sampled actions).
std::string save_actor_state(const agents::Agent& agent, const envs::VectorEnv& envs);
// Restores what save_actor_state() wrote (`where` names it in errors); returns whether the
// envs' episodes were restored (else they are to be reset).
bool load_actor_state(const std::string& state, const std::string& where, agents::Agent& agent,
                      envs::VectorEnv& envs);

// An actor rank's loop (actor_learner_links.h, protocol steps 1, 2, 4 and 5): steps its envs
// with its agent until `payload_ready()`, has `write_payload` fill the next message and sends it
// with the episodes that ended, taking the newest parameters before each, until its learner
// says stop; sends its state after a payload when the learner asks for it. `resume_from`: the
// checkpoint the learners resume from, or null; the actor starts from the state it saved there
// (its envs, seeded by the step by make_worker_envs, start new episodes where it saved none).
// Returns the global step the learner last reported.
std::int64_t act_until_stopped(LearnerLink& learner, Actor& actor, const Checkpoint* resume_from,
                               const std::function<bool()>& payload_ready,
                               const std::function<void(float*)>& write_payload);

}  // namespace mnrl::experiments
