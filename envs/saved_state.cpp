#include "envs/saved_state.h"

#include <stdexcept>

#include "envs/wrapper.h"

namespace mnrl::envs {

bool saves_state(const Env& env) {
  if (const auto* wrapper = dynamic_cast<const Wrapper*>(&env)) return saves_state(wrapper->inner());
  return dynamic_cast<const StatefulEnv*>(&env) != nullptr;
}

void save_env_state(const Env& env, core::StateWriter& out) {
  const auto* stateful = dynamic_cast<const StatefulEnv*>(&env);
  if (stateful == nullptr || !saves_state(env)) {
    throw std::logic_error(env.spec().id + " does not save its state");
  }
  stateful->save_state(out);
}

void load_env_state(Env& env, core::StateReader& in) {
  auto* stateful = dynamic_cast<StatefulEnv*>(&env);
  if (stateful == nullptr || !saves_state(env)) {
    throw std::logic_error(env.spec().id + " does not load a state");
  }
  stateful->load_state(in);
}

}  // namespace mnrl::envs
