#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "envs/env.h"

namespace mnrl::envs {

using EnvFactory = std::function<std::unique_ptr<Env>()>;

// Maps env ids ("CartPole-v1") to factories. Built-ins register themselves with
// MNRL_REGISTER_ENV; plugins (later) register into the same instance.
class Registry {
 public:
  static Registry& global();

  // Throws std::invalid_argument if `id` is already registered.
  void add(const std::string& id, EnvFactory factory);
  bool contains(const std::string& id) const;
  std::vector<std::string> ids() const;  // sorted

  // Builds the env, validates its spec, and wraps it in a TimeLimit when the spec has
  // max_episode_steps (as gymnasium.make does). `max_episode_steps` > 0 overrides the spec's
  // limit. Throws std::invalid_argument for an unknown id, with a "did you mean" suggestion.
  std::unique_ptr<Env> make(const std::string& id, int max_episode_steps = 0) const;

 private:
  std::map<std::string, EnvFactory> factories_;
};

}  // namespace mnrl::envs

#define MNRL_ENV_CONCAT_INNER(a, b) a##b
#define MNRL_ENV_CONCAT(a, b) MNRL_ENV_CONCAT_INNER(a, b)

// MNRL_REGISTER_ENV("CartPole-v1", CartPole): registers a default-constructible Env type at
// load time. Use it in a .cpp file of a shared library or of the program itself.
#define MNRL_REGISTER_ENV(id, Type)                                                      \
  static const bool MNRL_ENV_CONCAT(mnrl_env_registered_, __LINE__) = [] {              \
    ::mnrl::envs::Registry::global().add(id, [] { return std::make_unique<Type>(); });   \
    return true;                                                                         \
  }()
