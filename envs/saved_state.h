#pragma once

#include <array>
#include <cstddef>

#include "core/rng.h"
#include "core/state_stream.h"
#include "envs/env.h"

namespace mnrl::envs {

// Optional for an env: its whole state (physics, RNG, episode progress) written and read back,
// so that a checkpoint resumes its episodes exactly. An env without it still trains and
// checkpoints; a resumed run starts new episodes in it. Built-in envs and wrappers implement
// it; a plugin env may (SDK 1.1), and load_state() must accept what save_state() wrote.
class StatefulEnv {
 public:
  virtual void save_state(core::StateWriter& out) const = 0;
  virtual void load_state(core::StateReader& in) = 0;

 protected:
  ~StatefulEnv() = default;
};

// Whether `env` and every env it wraps save their state.
bool saves_state(const Env& env);
// Require saves_state(env); throw std::logic_error otherwise.
void save_env_state(const Env& env, core::StateWriter& out);
void load_env_state(Env& env, core::StateReader& in);

// The state of a built-in physics env: its RNG, its physical state and its episode phase
// (a trivially copyable value such as EpisodePhase).
template <std::size_t N, class Phase>
void save_physics_state(core::StateWriter& out, const core::Rng& rng,
                        const std::array<double, N>& state, const Phase& phase) {
  out.values(rng.state());
  out.values(state);
  out.value(phase);
}

template <std::size_t N, class Phase>
void load_physics_state(core::StateReader& in, core::Rng& rng, std::array<double, N>& state,
                        Phase& phase) {
  core::Rng::State rng_state;
  in.values(rng_state);
  rng.set_state(rng_state);
  in.values(state);
  in.value(phase);
}

}  // namespace mnrl::envs
