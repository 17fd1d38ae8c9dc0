#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>

namespace mnrl::agents {
class Dqn;
class R2d2;
}  // namespace mnrl::agents
namespace mnrl::envs {
struct EnvSpec;
}

namespace mnrl::topologies {

// What an Ape-X actor sends its learner, items of item_floats() floats each with its priority,
// and how the agent on either side makes and takes them: n-step transitions for Ape-X DQN,
// sequences for R2D2.
class ApexExperience {
 public:
  virtual ~ApexExperience() = default;

  // The agent's online parameters, one flat tensor (the agent's own, not a copy).
  virtual at::Tensor parameters() const = 0;
  virtual std::int64_t item_floats() const = 0;

  // An actor's: explores with `epsilon` from now on.
  virtual void explore_with(double epsilon) = 0;
  // An actor's: the items its steps have made and take() has not taken.
  virtual std::int64_t items_waiting() const = 0;
  // An actor's: its first `count` waiting items into `out` (count * item_floats()), each with
  // the priority its copy of the network gives it, and drops them.
  virtual void take(std::int64_t count, float* out) = 0;

  // A learner's: the items its replay holds.
  virtual std::int64_t replay_size() const = 0;
  // A learner's: `count` items an actor took, into its replay with their priorities. Throws
  // std::invalid_argument for a damaged item.
  virtual void add(const float* items, std::int64_t count) = 0;
};

// An actor's experience (`actor`: its steps go out, not to its replay) or a learner's.
std::unique_ptr<ApexExperience> transitions_of(agents::Dqn& dqn, const envs::EnvSpec& spec,
                                               bool actor);
std::unique_ptr<ApexExperience> sequences_of(agents::R2d2& r2d2);

}  // namespace mnrl::topologies
