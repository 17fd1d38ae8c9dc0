#pragma once

#include <cstdint>
#include <vector>

#include "agents/off_policy/off_policy_options.h"
#include "core/rng.h"
#include "core/state_fields.h"
#include "core/state_stream.h"

namespace mnrl::agents {

// Exploration noise for a deterministic actor, one process per env and action dimension
// (SB3's NormalActionNoise / OrnsteinUhlenbeckActionNoise behind VectorizedActionNoise).
class ActionNoise {
 public:
  ActionNoise(const ActionNoiseOptions& options, std::int64_t num_envs, std::int64_t action_size);

  bool enabled() const { return kind_ != Kind::none; }
  // Adds one step of noise to `actions` [rows, action_size] (rows <= num_envs; row i is env
  // i's) and clips them into [-1, 1].
  void perturb(float* actions, std::int64_t rows, core::Rng& rng);
  // An episode of env `env` ended: its Ornstein-Uhlenbeck process restarts at 0.
  void reset(std::int64_t env);

  void save_state(core::StateWriter& out) const;
  void load_state(core::StateReader& in);

 private:
  enum class Kind { none, normal, ornstein_uhlenbeck };
  Kind kind_;
  ActionNoiseOptions options_;
  std::int64_t action_size_;
  std::vector<float> previous_;  // [num_envs, action_size]: the Ornstein-Uhlenbeck state

  friend struct core::StateFieldsAccess;
  template <class Fields>
  void state_fields(Fields& fields) {
    fields(previous_);
  }
};

}  // namespace mnrl::agents
