#include "envs/registry.h"

#include <stdexcept>

#include "core/text.h"
#include "envs/time_limit.h"

namespace mnrl::envs {

Registry& Registry::global() {
  static Registry registry;
  return registry;
}

void Registry::add(const std::string& id, EnvFactory factory) {
  if (id.empty()) throw std::invalid_argument("cannot register an environment with an empty id");
  if (!factory) throw std::invalid_argument("environment '" + id + "' has an empty factory");
  if (!factories_.emplace(id, std::move(factory)).second) {
    throw std::invalid_argument("environment '" + id + "' is already registered");
  }
}

bool Registry::contains(const std::string& id) const { return factories_.count(id) > 0; }

std::vector<std::string> Registry::ids() const {
  std::vector<std::string> out;
  out.reserve(factories_.size());
  for (const auto& entry : factories_) out.push_back(entry.first);  // std::map: already sorted
  return out;
}

std::unique_ptr<Env> Registry::make(const std::string& id, int max_episode_steps) const {
  const auto it = factories_.find(id);
  if (it == factories_.end()) {
    const std::vector<std::string> known = ids();
    throw std::invalid_argument("unknown environment '" + id + "'" + core::did_you_mean(id, known) +
                                "; registered: " + (known.empty() ? "none" : core::join(known)));
  }
  if (max_episode_steps < 0) {
    throw std::invalid_argument("environment '" + id + "': max_episode_steps is " +
                                std::to_string(max_episode_steps) + ", must be >= 0");
  }
  std::unique_ptr<Env> env = it->second();
  if (!env) throw std::logic_error("the factory of environment '" + id + "' returned null");
  env->spec().validate();
  if (env->spec().id != id) {
    throw std::logic_error("environment registered as '" + id + "' reports the id '" +
                           env->spec().id + "'");
  }
  const int limit = max_episode_steps > 0 ? max_episode_steps : env->spec().max_episode_steps;
  if (limit > 0) env = std::make_unique<TimeLimit>(std::move(env), limit);
  return env;
}

}  // namespace mnrl::envs
