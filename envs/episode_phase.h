#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "envs/env.h"

namespace mnrl::envs {

// Where a built-in env is in its episode, so that step() is refused before reset() and after
// a terminating step (Gymnasium only warns), in the same words for every env.
class EpisodePhase {
 public:
  void start() { phase_ = Phase::kRunning; }
  void finish_step(bool terminated) { phase_ = terminated ? Phase::kTerminated : Phase::kRunning; }

  // Throws std::logic_error naming `env`'s id unless a step may follow.
  void check_can_step(const Env& env) const {
    if (phase_ != Phase::kRunning) throw_not_running(env);
  }

 private:
  enum class Phase : std::uint8_t { kNeedsReset, kRunning, kTerminated };

  [[noreturn]] void throw_not_running(const Env& env) const {
    throw std::logic_error(env.spec().id + ": step() called " +
                           (phase_ == Phase::kNeedsReset
                                ? "before reset()"
                                : "after the episode terminated; call reset() first"));
  }

  Phase phase_ = Phase::kNeedsReset;
};

}  // namespace mnrl::envs
