#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/kwargs.h"
#include "envs/env.h"

namespace mnrl::envs {

// Builds an env from its keyword arguments (`env.kwargs` in YAML).
using EnvFactory = std::function<std::unique_ptr<Env>(const core::Kwargs&)>;

// Maps env ids ("CartPole-v1") to factories. Envs built into a program register themselves with
// MNRL_REGISTER_ENV; plugins register through MNRL_PLUGIN (envs/plugin.h) into a registry of
// their own that the loader moves into the global one. Not thread-safe: register and load
// plugins before building envs on several threads.
class Registry {
 public:
  static Registry& global();

  // Registers `factory` under `id`. `origin` says where the env comes from: empty for one built
  // into the program, the plugin's path for a plugin (messages name it). Throws std::invalid_argument if `id` is already registered.
  void add(const std::string& id, EnvFactory factory, std::string origin = "");
  // Registers a factory that takes no kwargs (make() refuses any it is given).
  void add(const std::string& id, std::function<std::unique_ptr<Env>()> factory,
           std::string origin = "");
  // Registers `Type`, built from the kwargs when it has a constructor taking const Kwargs&,
  // else default-constructed.
  template <class Type>
  void add(const std::string& id, std::string origin = "") {
    if constexpr (std::is_constructible_v<Type, const core::Kwargs&>) {
      add(id, EnvFactory([](const core::Kwargs& kwargs) { return std::make_unique<Type>(kwargs); }),
          std::move(origin));
    } else {
      add(id, std::function<std::unique_ptr<Env>()>([] { return std::make_unique<Type>(); }),
          std::move(origin));
    }
  }

  // Moves every env of `other` into this registry with `origin`. Throws std::invalid_argument
  // naming the first id this registry already has, and then moves nothing.
  void adopt(Registry&& other, const std::string& origin);

  // While one exists, add() records ids in `ids` instead of registering them: the plugin loader
  // catches MNRL_REGISTER_ENV running inside a plugin as it loads, before the version check.
  class Diversion {
   public:
    Diversion(Registry& registry, std::vector<std::string>& ids) : registry_(registry) {
      registry_.diverted_ = &ids;
    }
    ~Diversion() { registry_.diverted_ = nullptr; }
    Diversion(const Diversion&) = delete;
    Diversion& operator=(const Diversion&) = delete;

   private:
    Registry& registry_;
  };

  bool contains(const std::string& id) const;
  std::vector<std::string> ids() const;  // sorted
  // Where `id` comes from: "" if built into the program, else the plugin's path.
  const std::string& origin(const std::string& id) const;

  // Builds the env from `kwargs`, validates its spec, and wraps it in a TimeLimit when the spec
  // has max_episode_steps (as gymnasium.make does). `max_episode_steps` > 0 overrides the
  // spec's limit. Throws std::invalid_argument for an unknown id, with a "did you mean"
  // suggestion, and core::KwargError for kwargs the env cannot read or does not take.
  std::unique_ptr<Env> make(const std::string& id, const core::Kwargs& kwargs = {},
                            int max_episode_steps = 0) const;

 private:
  struct Entry {
    EnvFactory factory;
    std::string origin;
  };
  const Entry& find(const std::string& id) const;

  std::map<std::string, Entry> entries_;
  std::vector<std::string>* diverted_ = nullptr;  // see Diversion
};

}  // namespace mnrl::envs

#define MNRL_ENV_CONCAT_INNER(a, b) a##b
#define MNRL_ENV_CONCAT(a, b) MNRL_ENV_CONCAT_INNER(a, b)

// MNRL_REGISTER_ENV("CartPole-v1", CartPole): registers an Env type into the global registry at
// load time, built from its kwargs if it has a constructor taking const core::Kwargs&. Use it
// in a .cpp file of the program or of a library it links (a plugin uses MNRL_PLUGIN instead).
#define MNRL_REGISTER_ENV(id, Type)                                          \
  static const bool MNRL_ENV_CONCAT(mnrl_env_registered_, __COUNTER__) = [] { \
    ::mnrl::envs::Registry::global().add<Type>(id);                         \
    return true;                                                             \
  }()
