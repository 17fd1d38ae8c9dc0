#pragma once

#include <cstdint>
#include <vector>

#include "core/state_fields.h"

namespace mnrl::agents {

// A recurrent policy's memory over rollouts (plain floats, as replay::RolloutBuffer): each
// training env's state, what its next act() starts from, and whether its next observation
// begins an episode; and for every row of the rollout, the state before the row's step and
// that flag, from which an update replays sequences. Rows are [step][env] as the rollout's.
//
// Protocol: act() of rollout step t calls record_step(t), steps the network from states() with
// episode_starts() and writes the state after the step into states(), then clears the flags
// (steps_taken()); observe() calls end_episodes() with the step's outcome. Training starts
// every env at an episode's start.
class RolloutMemory {
 public:
  RolloutMemory(std::int64_t n_steps, std::int64_t num_envs, std::int64_t state_size);

  std::int64_t state_size() const { return state_size_; }
  std::int64_t num_envs() const { return num_envs_; }

  std::vector<float>& states() { return states_; }  // [num_envs, state_size]
  const std::vector<float>& episode_starts() const { return episode_starts_; }  // [num_envs]
  void record_step(std::int64_t step);
  void steps_taken();
  // Envs whose episode ended (terminated or truncated) start the next one from a zero state.
  void end_episodes(const std::uint8_t* terminated, const std::uint8_t* truncated);

  // Whole-rollout arrays: [n_steps * num_envs * state_size] and [n_steps * num_envs].
  const float* rollout_states() const { return rollout_states_.data(); }
  const float* rollout_episode_starts() const { return rollout_episode_starts_.data(); }

  // A trajectory's memory as an IMPALA actor sends it with its rollout: each env's state before
  // the rollout's first step, every row's episode-start flag, and the flags of the observations
  // after the last step. A learner replays each env's sequence from its first row's state, so
  // unpack_envs() writes only that row's states (the later rows' stay as they were).
  std::int64_t packed_floats(std::int64_t envs) const {
    return envs * (state_size_ + n_steps_ + 1);
  }
  void pack(float* out) const;
  // Reads a trajectory of `envs` envs into envs [first_env, first_env + envs).
  void unpack_envs(const float* in, std::int64_t envs, std::int64_t first_env);

 private:
  std::int64_t n_steps_, num_envs_, state_size_;
  std::vector<float> states_, episode_starts_;
  std::vector<float> rollout_states_, rollout_episode_starts_;

  friend struct core::StateFieldsAccess;
  template <class Fields>
  void state_fields(Fields& fields) {
    fields.tag("rollout_memory");
    fields(states_, episode_starts_, rollout_states_, rollout_episode_starts_);
  }
};

}  // namespace mnrl::agents
