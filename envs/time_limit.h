#pragma once

#include <memory>

#include "envs/wrapper.h"

namespace mnrl::envs {

// Gymnasium's TimeLimit: counts steps since reset() and reports truncated = true on the step
// where the count reaches max_episode_steps (also when that step terminates). Its spec is the
// inner env's with max_episode_steps set to the limit.
class TimeLimit final : public Wrapper {
 public:
  // Throws std::invalid_argument for a null env or a limit < 1.
  TimeLimit(std::unique_ptr<Env> env, int max_episode_steps);

  void reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) override;
  // Throws std::logic_error before the first reset() and after a truncation until reset().
  StepResult step(const ActionRef& action, core::TypedPtr observation) override;

  int elapsed_steps() const { return elapsed_steps_; }

 private:
  void save_own_state(core::StateWriter& out) const override { out.value(elapsed_steps_); }
  void load_own_state(core::StateReader& in) override { in.value(elapsed_steps_); }

  int elapsed_steps_ = -1;  // -1 until the first reset()
};

}  // namespace mnrl::envs
