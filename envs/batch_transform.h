#pragma once

#include <cstddef>
#include <cstdint>

#include "core/state_stream.h"
#include "core/typed_ptr.h"

namespace mnrl::envs {

// A vector env's outputs for one step, as the batch transforms see and change them in place.
struct Batch {
  std::size_t num_envs = 0;
  std::size_t observation_size = 0;
  // [num_envs, observation_size] of the observation space's dtype, after auto-reset, and the
  // final observations (row i meaningful only where env i's episode ended).
  core::TypedPtr observations;
  core::TypedPtr final_observations;
  float* rewards = nullptr;  // [num_envs]
  const std::uint8_t* terminated = nullptr;
  const std::uint8_t* truncated = nullptr;

  bool ended(std::size_t env) const { return terminated[env] || truncated[env]; }
};

// A stage that works on the whole batch after the envs have stepped, such as SB3's
// VecNormalize: observation and reward normalization, episode statistics. Transforms run on
// the calling thread, in order, over envs 0..N-1, so their shared statistics come out the same
// whether the envs stepped serially or on worker threads.
class BatchTransform {
 public:
  virtual ~BatchTransform() = default;

  // After the vector env's reset(): only `observations` is meaningful.
  virtual void on_reset(const Batch& batch) = 0;
  // After every step, before anyone reads the outputs.
  virtual void on_step(const Batch& batch) = 0;

  // For checkpoints: everything the transform carries from one step to the next.
  virtual void save_state(core::StateWriter& out) const = 0;
  virtual void load_state(core::StateReader& in) = 0;
};

}  // namespace mnrl::envs
