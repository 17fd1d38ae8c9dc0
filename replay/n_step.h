#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/state_fields.h"
#include "core/state_stream.h"
#include "core/typed_rows.h"
#include "replay/replay_buffer.h"

namespace mnrl::replay {

// Turns the steps of a vector env into n-step transitions, env by env (Sutton & Barto 7.1;
// Rainbow's multi-step targets). Each env keeps up to n pending steps:
//  - once it has n, the oldest becomes a transition with reward sum_{k<n} gamma^k r_k,
//    next_observation the observation after this step, terminated false, discount gamma^n;
//  - when its episode ends, every pending step (oldest first) becomes a transition with the
//    discounted sum of its remaining k rewards, next_observation the env's final observation,
//    discount gamma^k, and terminated the env's terminated flag: a truncated (time limit, not
//    terminated) episode bootstraps from its final observation.
// With n = 1 these are the ordinary one-step transitions. Storage is preallocated; add() does
// not allocate.
class NStepAccumulator {
 public:
  // Throws std::invalid_argument for num_envs, n, observation_size or action_size < 1, or a
  // gamma outside [0, 1].
  NStepAccumulator(std::int64_t num_envs, int n, float gamma, std::int64_t observation_size,
                   std::int64_t action_size, core::Dtype observation_dtype = core::Dtype::float32);

  std::int64_t num_envs() const { return num_envs_; }
  int n() const { return n_; }
  float gamma() const { return gamma_; }
  // Steps of `env` waiting for more rewards (< n between calls to add()).
  int pending(std::int64_t env) const { return counts_[static_cast<std::size_t>(env)]; }

  // One vector-env step, arrays laid out [env][...]: `observations` before the step, the
  // `actions` taken, then the env's outputs (`next_observations` after auto-reset,
  // `final_observations` read only where an episode ended). Calls emit(transition) for each
  // transition that became complete, in env order and oldest first within an env; the
  // transition's pointers are valid only during the call.
  void add(core::ConstTypedPtr observations, const float* actions, const float* rewards,
           core::ConstTypedPtr next_observations, const std::uint8_t* terminated,
           const std::uint8_t* truncated, core::ConstTypedPtr final_observations,
           const std::function<void(const Transition&)>& emit);

  // Drops every pending step (e.g. after the envs were reset by hand).
  void clear();

  // For checkpoints: every env's pending steps. load_state() needs the same sizes and n.
  void save_state(core::StateWriter& out) const;
  void load_state(core::StateReader& in);

 private:
  // Position in env's ring of its pending step `age` (0 = oldest).
  std::size_t ring_index(std::size_t env, int age) const;
  // Emits env's oldest pending step, summing the rewards of all its pending steps, and drops it.
  void emit_oldest(std::size_t env, core::ConstTypedPtr next_observation, bool terminated,
                   const std::function<void(const Transition&)>& emit);

  std::int64_t num_envs_;
  int n_;
  float gamma_;
  std::int64_t observation_size_, action_size_;
  // Per env, a ring of n steps: [env][n][observation_size], [env][n][action_size], [env][n].
  core::TypedRows observations_;
  std::vector<float> actions_, rewards_;
  std::vector<int> starts_, counts_;  // [env] oldest pending step's ring position, how many

  friend struct core::StateFieldsAccess;
  template <class Fields>
  void state_fields(Fields& fields) {
    fields.tag("n_step");
    fields(observations_.first_rows(static_cast<std::size_t>(num_envs_ * n_)), actions_, rewards_,
           starts_, counts_);
  }
};

}  // namespace mnrl::replay
