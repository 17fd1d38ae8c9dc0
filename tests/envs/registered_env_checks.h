#pragma once
// What the tests of every built-in env (physics, MinAtar) check the same way: the env checker,
// and exact resume from a saved state. Envs are built by the global registry, time limit
// included, as training builds them.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/kwargs.h"
#include "core/rng.h"
#include "core/state_stream.h"
#include "core/typed_rows.h"
#include "envs/action_sampler.h"
#include "envs/env_checker.h"
#include "envs/registry.h"
#include "envs/saved_state.h"

namespace mnrl::envs::test_envs {

inline void expect_checker_passes(const std::string& id, std::int64_t steps = 2000,
                                  const core::Kwargs& kwargs = {}) {
  EnvCheckOptions options;
  options.steps = steps;
  const EnvCheckReport report = check_registered_env(id, options, kwargs);
  for (const EnvCheckResult& result : report.results) {
    EXPECT_FALSE(result.failed()) << id << ": " << result.check << ": " << result.detail;
  }
}

// One observation of `env`'s space, in its dtype.
inline core::TypedRows observation_for(const Env& env) {
  const Space& space = env.spec().observation_space;
  return core::TypedRows(element_dtype(space), 1, static_cast<std::size_t>(flat_size(space)));
}

// Random actions from `rng` for `steps` steps, resetting after each episode: every observation
// (as floats) and reward, as bits to compare.
inline std::vector<float> random_trace(Env& env, core::Rng& rng, int steps) {
  ActionSampler sampler(env.spec().action_space);
  core::TypedRows observation = observation_for(env);
  std::vector<float> trace;
  const auto record = [&] {
    trace.resize(trace.size() + observation.row_size());
    observation.row_as_floats(0, trace.data() + trace.size() - observation.row_size(), 1.0f);
  };
  for (int k = 0; k < steps; ++k) {
    const StepResult r = env.step(sampler.sample(rng), observation.row(0));
    record();
    trace.push_back(static_cast<float>(r.reward));
    if (r.terminated || r.truncated) {
      env.reset(observation.row(0), std::nullopt);
      record();
    }
  }
  return trace;
}

// Saves the env after `steps_before` random steps from a reset with `seed`, then runs
// `steps_after` more (choose enough for an episode or more to end) on it and on a fresh env
// that loaded the state: the same bits, the env's RNG included (the episodes after the saved
// one start alike).
inline void expect_resumes_bit_for_bit(const std::string& id, std::uint64_t seed,
                                       int steps_before = 37, const core::Kwargs& kwargs = {},
                                       int steps_after = 400) {
  auto original = Registry::global().make(id, kwargs);
  core::TypedRows observation = observation_for(*original);
  original->reset(observation.row(0), seed);
  core::Rng actions(seed + 1);
  random_trace(*original, actions, steps_before);
  core::StateWriter out;
  save_env_state(*original, out);
  const core::Rng::State action_state = actions.state();
  const std::vector<float> expected = random_trace(*original, actions, steps_after);

  auto restored = Registry::global().make(id, kwargs);
  core::StateReader in(out.bytes(), "test");
  load_env_state(*restored, in);
  in.expect_end();
  actions.set_state(action_state);
  const std::vector<float> replayed = random_trace(*restored, actions, steps_after);
  ASSERT_EQ(expected.size(), replayed.size()) << id;
  EXPECT_EQ(0, std::memcmp(expected.data(), replayed.data(), expected.size() * sizeof(float)))
      << id;
}

}  // namespace mnrl::envs::test_envs
