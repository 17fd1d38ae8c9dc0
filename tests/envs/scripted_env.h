#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "envs/env.h"

namespace mnrl::envs::test_envs {

// A deterministic env for wrapper tests: the observation is [episode, step, seed % 1000 or -1
// when reset without a seed], step t (1-based) rewards 0.5 * t, and the episode terminates
// after `terminate_after` steps (never when 0). Actions are Discrete(3), or a Box of
// `action_dims` floats when that is > 0; the last one is recorded.
class ScriptedEnv final : public Env {
 public:
  explicit ScriptedEnv(int terminate_after = 0, std::string id = "Scripted-v0", int action_dims = 0)
      : terminate_after_(terminate_after) {
    spec_.id = std::move(id);
    spec_.observation_space = Box{{3}, {-1e9f, -1e9f, -1e9f}, {1e9f, 1e9f, 1e9f}};
    if (action_dims > 0) {
      const auto n = static_cast<std::size_t>(action_dims);
      spec_.action_space =
          Box{{action_dims}, std::vector<float>(n, -1.0f), std::vector<float>(n, 1.0f)};
    } else {
      spec_.action_space = Discrete{3};
    }
  }

  const EnvSpec& spec() const override { return spec_; }

  void reset(core::TypedPtr out, std::optional<std::uint64_t> seed) override {
    float* observation = out.floats();
    ++episode_;
    steps_ = 0;
    last_seed_ = seed ? static_cast<float>(*seed % 1000) : -1.0f;
    write(observation);
  }

  StepResult step(const ActionRef& action, core::TypedPtr out) override {
    float* observation = out.floats();
    ++steps_;
    last_action_ = action;
    write(observation);
    return {0.5 * steps_, terminate_after_ > 0 && steps_ >= terminate_after_, false};
  }

  const ActionRef& last_action() const { return last_action_; }

 private:
  void write(float* observation) const {
    observation[0] = static_cast<float>(episode_);
    observation[1] = static_cast<float>(steps_);
    observation[2] = last_seed_;
  }

  EnvSpec spec_;
  int terminate_after_;
  int episode_ = 0;
  int steps_ = 0;
  float last_seed_ = -1.0f;
  ActionRef last_action_{-1, nullptr};
};

}  // namespace mnrl::envs::test_envs
