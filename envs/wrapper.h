#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "envs/env.h"
#include "envs/saved_state.h"

namespace mnrl::envs {

// Base of env-level wrappers (Gymnasium's gymnasium.Wrapper): owns the inner env and a copy of
// its spec that a wrapper may change (spaces, time limit). reset() and step() forward to the
// inner env unless overridden. Wrappers run wherever their env runs, worker threads included,
// so they keep state per env only. A wrapper saves its own state (save_own_state) followed by the
// inner env's; see saves_state() for whether the whole chain can.
class Wrapper : public Env, public StatefulEnv {
 public:
  // Throws std::invalid_argument for a null env; `name` is the wrapper's, for the message.
  Wrapper(std::unique_ptr<Env> env, const char* name)
      : spec_(checked(env, name).spec()), env_(std::move(env)) {}

  const EnvSpec& spec() const override { return spec_; }
  void reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) override {
    env_->reset(observation, seed);
  }
  StepResult step(const ActionRef& action, core::TypedPtr observation) override {
    return env_->step(action, observation);
  }
  bool render(RgbImage& image) const override { return env_->render(image); }

  const Env& inner() const { return *env_; }

  void save_state(core::StateWriter& out) const final {
    save_own_state(out);
    save_env_state(*env_, out);
  }
  void load_state(core::StateReader& in) final {
    load_own_state(in);
    load_env_state(*env_, in);
  }

 protected:
  Env& inner_env() { return *env_; }
  // Destroys the inner env now, for a destructor that watches it go (PluginEnvGuard's).
  void destroy_inner_env() { env_.reset(); }
  // What this wrapper itself keeps between steps; nothing by default.
  virtual void save_own_state(core::StateWriter&) const {}
  virtual void load_own_state(core::StateReader&) {}

  EnvSpec spec_;  // this wrapper's view: the inner spec with the wrapper's changes

 private:
  static const Env& checked(const std::unique_ptr<Env>& env, const char* name) {
    if (!env) throw std::invalid_argument(std::string(name) + ": the wrapped environment is null");
    return *env;
  }

  std::unique_ptr<Env> env_;
};

// A wrapper that rewrites every observation its inner env gives, after reset() and step()
// (Gymnasium's ObservationWrapper).
class ObservationWrapper : public Wrapper {
 public:
  using Wrapper::Wrapper;

  void reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) override {
    inner_env().reset(observation, seed);
    rewrite(observation);
  }
  StepResult step(const ActionRef& action, core::TypedPtr observation) override {
    const StepResult result = inner_env().step(action, observation);
    rewrite(observation);
    return result;
  }

 protected:
  virtual void rewrite(core::TypedPtr observation) = 0;
};

}  // namespace mnrl::envs
