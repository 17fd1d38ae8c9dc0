#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "envs/wrapper.h"

namespace mnrl::envs {

// Gymnasium's FrameStack: the observation is the last `num_frames` observations, oldest
// first, as a Box of shape [num_frames, ...inner shape] and the inner dtype. An image of shape
// [C, H, W] stacks on its channel axis instead, to [num_frames * C, H, W], as a convolution
// takes stacked frames (SB3's VecFrameStack on channels-first images). reset() fills every
// frame with the first observation.
class FrameStack final : public Wrapper {
 public:
  // Throws std::invalid_argument unless the inner observation space is a Box and
  // num_frames >= 1.
  FrameStack(std::unique_ptr<Env> env, int num_frames);

  void reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) override;
  StepResult step(const ActionRef& action, core::TypedPtr observation) override;

 private:
  void save_own_state(core::StateWriter& out) const override { out.values(frames_); }
  void load_own_state(core::StateReader& in) override { in.values(frames_); }

  // A frame in `storage` as the inner env's dtype: float storage may hold bytes, as unsigned
  // char may alias any object.
  core::TypedPtr frame(std::vector<float>& storage, std::size_t offset_bytes) const;

  core::Dtype dtype_ = core::Dtype::float32;
  std::size_t frame_bytes_ = 0;
  std::size_t stack_bytes_ = 0;  // frame_bytes_ * num_frames
  std::vector<float> frames_;    // num_frames frames of frame_bytes_ bytes each, oldest first
  std::vector<float> scratch_;   // the newest frame while the inner env steps
};

}  // namespace mnrl::envs
