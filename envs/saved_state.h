#pragma once

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

}  // namespace mnrl::envs
