#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "envs/wrapper.h"

namespace mnrl::envs {

// Gymnasium's FrameStack: the observation is the last `num_frames` observations, oldest
// first, as a Box of shape [num_frames, ...inner shape]. reset() fills every frame with the
// first observation.
class FrameStack final : public Wrapper {
 public:
  // Throws std::invalid_argument unless the inner observation space is a Box and
  // num_frames >= 1.
  FrameStack(std::unique_ptr<Env> env, int num_frames);

  void reset(float* observation, std::optional<std::uint64_t> seed) override;
  StepResult step(const ActionRef& action, float* observation) override;

 private:
  void save_own_state(core::StateWriter& out) const override { out.values(frames_); }
  void load_own_state(core::StateReader& in) override { in.values(frames_); }

  std::size_t frame_size_ = 0;
  std::vector<float> frames_;   // num_frames x frame_size_, oldest first
  std::vector<float> scratch_;  // the newest frame while the inner env steps
};

}  // namespace mnrl::envs
