#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/typed_ptr.h"

namespace mnrl::envs {

using core::Dtype;

// A box of numbers: `shape`, with per-element bounds (low/high have product(shape) entries;
// +-infinity for unbounded). Its elements are float32, or uint8 for images and grids (bounds
// then integers in [0, 255]), laid out channels first ([C, H, W]) as LibTorch's conv2d takes
// them.
struct Box {
  std::vector<std::int64_t> shape;
  std::vector<float> low;
  std::vector<float> high;
  Dtype dtype = Dtype::float32;
};

// Integers 0 .. n-1.
struct Discrete {
  std::int64_t n = 0;
};

using Space = std::variant<Box, Discrete>;

// Exact equality (shape and every bound), so std::variant's == compares two Spaces.
inline bool operator==(const Box& a, const Box& b) {
  return a.shape == b.shape && a.low == b.low && a.high == b.high && a.dtype == b.dtype;
}
inline bool operator!=(const Box& a, const Box& b) { return !(a == b); }
inline bool operator==(const Discrete& a, const Discrete& b) { return a.n == b.n; }
inline bool operator!=(const Discrete& a, const Discrete& b) { return !(a == b); }

// Number of elements one member of the space takes in a flat buffer (1 for Discrete).
std::int64_t flat_size(const Space& space);
// The dtype of those elements: the Box's, float32 for Discrete (the index as a float).
Dtype element_dtype(const Space& space);
// What a uint8 observation is multiplied by on its way to a network: 1/255 for an image (a
// uint8 Box with every low 0 and every high 255, SB3's is_image_space), else 1 (MinAtar's 0/1
// grids stay as they are).
float byte_scale(const Space& space);
bool is_discrete(const Space& space);
// A one-dimensional Box with low = -high, as Gymnasium's classic-control envs declare theirs.
Box symmetric_box(const std::vector<float>& high);
// The Box `space` holds; throws std::invalid_argument "<what> must be a Box, not Discrete(2)"
// otherwise (`what` names the space for the user, e.g. "FrameStack(Taxi-v3): observation space").
const Box& expect_box(const Space& space, const std::string& what);
// "Box(4) low=[-4.8, -inf, ...] high=[...]", "Box(4, 10, 10) uint8 low=0 high=1",
// "Discrete(2)".
std::string describe(const Space& space);

// The elements of a flat buffer that lie outside a space: how many, and the first described
// ("observation[2] = 7.5 is outside [-1, 1]", "observation[0] is NaN", "observation = 3 is not
// an integer in [0, 2)").
struct OutsideSpace {
  std::size_t count = 0;
  std::string first;
};
// Checks flat_size(space) elements at `values` (of the space's dtype) against `space`,
// skipping the indices `skip` selects (none if empty). NaN is outside every space.
OutsideSpace find_outside(const Space& space, core::ConstTypedPtr values,
                          const std::function<bool(std::size_t)>& skip = {});

// What an environment is, as values (EnvPool style): checked once when built.
struct EnvSpec {
  std::string id;
  Space observation_space;
  Space action_space;
  int max_episode_steps = 0;               // time limit applied by make(); 0 = none
  std::optional<double> reward_threshold;  // "solved" return, as Gymnasium registers it

  // Throws std::invalid_argument naming the env and the problem (empty shape, bounds of the
  // wrong length, low > high, uint8 bounds that are not integers in [0, 255], Discrete with
  // n < 1, a uint8 action space, ...).
  void validate() const;
};

}  // namespace mnrl::envs
