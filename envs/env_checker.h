#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "envs/registry.h"

namespace mnrl::envs {

// Options of check_env().
struct EnvCheckOptions {
  std::int64_t steps = 1000;  // random-action steps per rollout (>= 1)
  std::uint64_t seed = 0;     // seeds the first reset() of each rollout and the action sampler
};

enum class EnvCheckStatus : std::uint8_t {
  kPassed,
  kFailed,   // the env breaks this part of the contract; `detail` says where and how
  kSkipped,  // not (fully) checked: an earlier problem stopped it; `detail` says which
};

// The outcome of one check, in plain words.
struct EnvCheckResult {
  std::string check;  // what is checked, e.g. "observations inside the space"
  EnvCheckStatus status = EnvCheckStatus::kPassed;
  // Failed: the first violations (episode, step, value) and how many there were in all.
  // Passed: what was covered ("1000 steps in 43 episodes"). Skipped: why.
  std::string detail;

  bool failed() const { return status == EnvCheckStatus::kFailed; }
};

struct EnvCheckReport {
  std::string env_id;
  std::vector<EnvCheckResult> results;  // one per check, in a fixed order

  bool passed() const;  // no check failed (skipped ones do not count as failures)
  // The result of the check named `check`, or nullptr when it was not run.
  const EnvCheckResult* find(const std::string& check) const;
};

// Names of the checks, in report order. With an unbuildable env or an invalid spec, only the
// first is reported (the others need a valid spec).
namespace env_checks {
inline constexpr const char* kSpec = "spec is valid";
inline constexpr const char* kStepBeforeReset = "step before reset is refused";
inline constexpr const char* kNoErrors = "reset and step run without errors";
inline constexpr const char* kObservationWrites = "observation buffer written exactly";
inline constexpr const char* kObservationsInSpace = "observations inside the space";
inline constexpr const char* kFiniteRewards = "rewards are finite";
inline constexpr const char* kTimeLimit = "episodes respect the time limit";
inline constexpr const char* kStepAfterEnd = "step after the episode ended is refused";
inline constexpr const char* kDeterminism = "same seed, same trajectory";
inline constexpr const char* kSavedState = "a saved state replays";
inline constexpr const char* kInvalidActions = "invalid actions are refused";
}  // namespace env_checks

// Builds a fresh env on each call.
using EnvMaker = std::function<std::unique_ptr<Env>()>;

// Checks that the envs `make_env` builds keep the Env contract (env.h), in the spirit of
// Gymnasium's check_env:
//  - the spec is valid and its spaces fit in memory;
//  - step() before the first reset() throws std::logic_error;
//  - reset() and step() write exactly flat_size(observation_space) floats (sentinel-filled
//    buffer with guard floats after its end);
//  - every observation lies in the observation space (no NaN; inside [low, high] of a Box; an
//    integer in [0, n) for Discrete) and every reward is finite, over `steps` steps of random
//    valid actions, with reset() after each episode;
//  - with spec().max_episode_steps > 0, the step that reaches the limit reports truncated;
//  - step() after an episode ended (terminated or truncated), without reset(), throws
//    std::logic_error;
//  - two fresh envs reset with the same seed and given the same actions produce bit-identical
//    observations, rewards and flags (unseeded resets included), and resetting with the seed
//    again replays the first episode;
//  - for an env that saves its state (saved_state.h): a state saved a few steps into an
//    episode, loaded back into the env and into a fresh one, replays the (up to 100) calls
//    that followed the save bit for bit, and load_state() reads all that save_state() wrote;
//  - invalid actions throw std::invalid_argument (Discrete: n and -1; Box: a NaN value, one
//    value too many and one too few).
// `make_env` must build a fresh env on every call, as training would (time limit included:
// use Registry::make, or check_registered_env). Exceptions from the env or the factory are
// reported as failed checks, never thrown; a violation in one check does not stop the others.
// Throws std::invalid_argument only for options.steps < 1.
EnvCheckReport check_env(const EnvMaker& make_env, const EnvCheckOptions& options = {});

// check_env() on the env registered as `id`, built by registry.make(id, kwargs). Throws
// std::invalid_argument for an unknown id (the registry's message, with "did you mean") and
// core::KwargError for kwargs the env cannot read.
EnvCheckReport check_registered_env(const std::string& id, const EnvCheckOptions& options = {},
                                    const core::Kwargs& kwargs = {},
                                    const Registry& registry = Registry::global());

}  // namespace mnrl::envs
