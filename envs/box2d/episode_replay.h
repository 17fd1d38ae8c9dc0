#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/rng.h"
#include "core/state_stream.h"
#include "envs/env.h"
#include "envs/episode_phase.h"

namespace mnrl::envs {

// The saved state of a Box2D env, which cannot write its world out: the env's RNG at the
// episode's start and the actions taken since (a fixed number of floats each). Loading rebuilds
// the world by replaying them. Box2D gives the same world for the same calls in the same order,
// so the replayed episode is bit-identical, if every episode starts in a fresh b2World.
class EpisodeReplay {
 public:
  // What load() drives: the env's own episode start and physics step.
  struct Env {
    std::function<bool(const float* action)> valid;  // whether a recorded action can be taken
    std::function<void()> start;                     // a new episode, from the RNG as it is
    std::function<StepResult(const float* action)> advance;  // one step, not recorded
    std::function<void()> clear;  // no episode yet (saved before a reset)
  };

  EpisodeReplay(std::string env_id, std::size_t action_size)
      : env_id_(std::move(env_id)), action_size_(action_size) {}

  // At reset(), before the episode draws anything from `rng`.
  void start(const core::Rng::State& rng);
  // At step(): the action as taken (action_size floats).
  void record(const float* action);

  // Writes the record, then the env's RNG and episode phase as they are now.
  void save(core::StateWriter& out, const core::Rng& rng, const EpisodePhase& phase) const;
  // Reads what save() wrote and replays the episode through `env`, leaving `rng` and `phase`
  // as saved. Throws core::StateError (before anything changes) for a record that is not a
  // whole number of actions or holds one `env.valid` refuses, and (after the replay) for one
  // that goes on after its episode terminated or does not end at the saved RNG state.
  void load(core::StateReader& in, core::Rng& rng, EpisodePhase& phase, const Env& env);

 private:
  std::string env_id_;
  std::size_t action_size_;
  bool started_ = false;
  core::Rng::State start_rng_{};
  std::vector<float> actions_;
};

}  // namespace mnrl::envs
