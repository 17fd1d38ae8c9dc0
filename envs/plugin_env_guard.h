#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "envs/wrapper.h"

namespace mnrl::envs {

// An env broke its contract while training: it threw, or gave an observation outside its
// declared space or a reward that is not finite. The message names the env, the plugin, the
// call and where in the run it happened.
class EnvContractError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Wraps an env from a plugin so that its faults surface as EnvContractError naming the plugin
// instead of as a bare exception or as NaNs that poison training many steps later. Checks
// every observation against the declared space and every reward for being finite; the cost is
// one comparison per observation float. Built-in envs are checked by tests instead.
class PluginEnvGuard final : public Wrapper {
 public:
  PluginEnvGuard(std::unique_ptr<Env> env, std::string plugin_path);

  void reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) override;
  StepResult step(const ActionRef& action, core::TypedPtr observation) override;

 private:
  void save_own_state(core::StateWriter& out) const override {
    out.value(episode_);
    out.value(step_);
  }
  void load_own_state(core::StateReader& in) override {
    in.value(episode_);
    in.value(step_);
  }

  // "environment 'X' from plugin 'P': <what> (episode E, step S)"
  [[noreturn]] void fail(const std::string& what) const;
  void check_observation(core::ConstTypedPtr observation, const char* call) const;

  std::string plugin_path_;
  std::string description_;   // "environment 'X' from plugin 'P'", for PluginCall
  std::int64_t episode_ = 0;  // 1-based once reset
  std::int64_t step_ = 0;     // steps into the episode
};

}  // namespace mnrl::envs
