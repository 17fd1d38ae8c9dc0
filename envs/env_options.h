#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/kwargs.h"
#include "envs/vector_env.h"
#include "envs/wrapper_options.h"

namespace mnrl::envs {

// The `env:` section of an experiment config.
struct EnvOptions {
  std::string id = "CartPole-v1";         // registered env id
  std::string plugin;                     // shared library to load first (envs/plugin_loader.h)
  core::Kwargs kwargs{"env.kwargs", ""};  // arguments of the env's constructor
  int num_envs = 1;                       // envs stepped together in one vector env
  int num_threads = 1;                    // threads stepping them (the caller's included)
  int max_episode_steps = 0;              // time limit; 0 = the limit the env registers
  std::vector<WrapperOptions> wrappers;

  void visit(core::ConfigVisitor& v) {
    v.field("id", id, "registered environment id (see `mnrl envs`)");
    v.field("plugin", plugin,
            "env plugin (.so) to load before making the env; a path, relative to the config "
            "file's directory (to the working directory in a --set), never searched for "
            "(config.yaml records it absolute; --plugin overrides it)");
    v.field("kwargs", kwargs,
            "keyword arguments of the env's constructor; keys ending in _path or _file name "
            "files, taken as env.plugin is");
    v.field("num_envs", num_envs, "environments stepped together", core::between(1, 100000));
    v.field("num_threads", num_threads,
            "threads stepping the envs, this one included; results do not depend on it",
            core::between(1, 1024));
    v.field("max_episode_steps", max_episode_steps,
            "time limit in steps; 0 keeps the env's registered limit", core::at_least(0));
    v.list("wrappers", wrappers, "wrappers, innermost first (see docs/environments.md)", "type");
  }
};

// One env from the global registry, built from options.kwargs, with its registered (or
// overridden) time limit and the env-level wrappers of options.wrappers applied; a plugin's env
// is wrapped in a PluginEnvGuard first. Throws std::invalid_argument for an unknown id or a
// wrapper that does not fit the env (naming both), core::KwargError for unusable kwargs.
// options.plugin must have been loaded already (load_plugin).
std::unique_ptr<Env> make_env(const EnvOptions& options);

// Throws std::invalid_argument when a batch wrapper of `options` cannot take observations of
// `observation_space` (normalize_observation on uint8 ones).
void check_batch_wrappers_fit(const EnvOptions& options, const Space& observation_space);

// options.num_envs envs from make_env() in one VectorEnv seeded with `seed`, stepped by
// options.num_threads threads, with the batch wrappers of options.wrappers.
std::unique_ptr<VectorEnv> make_vector_env(const EnvOptions& options, std::uint64_t seed);

// `num_envs` envs for evaluating an agent trained on `training`: the same env-level wrappers,
// observations normalized with the training envs' statistics (read, never updated), rewards
// and returns left as the env gives them. One thread.
std::unique_ptr<VectorEnv> make_evaluation_vector_env(const EnvOptions& options, int num_envs,
                                                      std::uint64_t seed,
                                                      const VectorEnv& training);

}  // namespace mnrl::envs
