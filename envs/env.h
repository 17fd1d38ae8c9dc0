#pragma once

#include <cstdint>
#include <optional>

#include "core/typed_ptr.h"
#include "envs/rgb_image.h"
#include "envs/space.h"

namespace mnrl::envs {

// The action for one env, as plain memory: `index` for a Discrete action space, or `size`
// floats at `values` for a Box (flat_size(action_space) of them; see check_action()).
struct ActionRef {
  std::int64_t index = 0;
  const float* values = nullptr;
  std::int64_t size = 0;
};

// Gymnasium semantics: `terminated` is a true end of the task (no bootstrapping from the next
// state); `truncated` is a cut-off such as a time limit (the episode could have gone on).
struct StepResult {
  double reward = 0.0;
  bool terminated = false;
  bool truncated = false;
};

// An environment over plain buffers. No torch, no threads: batching and threading belong to
// the vector env. Observations are written to caller-owned memory of
// flat_size(spec().observation_space) elements of its dtype: `observation.floats()` for a
// float32 space, `observation.bytes()` for a uint8 Box.
class Env {
 public:
  virtual ~Env() = default;

  virtual const EnvSpec& spec() const = 0;

  // Starts an episode and writes its first observation. With a seed, the env's RNG is reseeded
  // first (Gymnasium's reset(seed=...)); without, it continues its current stream.
  virtual void reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) = 0;

  // Advances one step and writes the next observation. Must follow reset().
  virtual StepResult step(const ActionRef& action, core::TypedPtr observation) = 0;

  // Gymnasium's render() with render_mode="rgb_array": draws the current state into `image`
  // (resizing it) and returns true, or returns false for an env without pictures (the default).
  // After reset(); changes nothing the next step() sees.
  virtual bool render(RgbImage& /*image*/) const { return false; }
};

}  // namespace mnrl::envs
