#include "envs/frame_stack.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace mnrl::envs {

FrameStack::FrameStack(std::unique_ptr<Env> env, int num_frames)
    : Wrapper(std::move(env), "FrameStack") {
  const std::string name = "FrameStack(" + spec_.id + ")";
  const Box& box = expect_box(spec_.observation_space, name + ": observation space");
  if (num_frames < 1) {
    throw std::invalid_argument(name + ": num_frames is " + std::to_string(num_frames) +
                                ", must be >= 1");
  }
  frame_size_ = box.low.size();
  Box stacked{{num_frames}, {}, {}};
  stacked.shape.insert(stacked.shape.end(), box.shape.begin(), box.shape.end());
  for (int k = 0; k < num_frames; ++k) {
    stacked.low.insert(stacked.low.end(), box.low.begin(), box.low.end());
    stacked.high.insert(stacked.high.end(), box.high.begin(), box.high.end());
  }
  frames_.assign(stacked.low.size(), 0.0f);
  scratch_.assign(frame_size_, 0.0f);
  spec_.observation_space = std::move(stacked);
}

void FrameStack::reset(float* observation, std::optional<std::uint64_t> seed) {
  float* newest = frames_.data() + frames_.size() - frame_size_;
  inner_env().reset(newest, seed);
  for (float* frame = frames_.data(); frame != newest; frame += frame_size_) {
    std::copy(newest, newest + frame_size_, frame);
  }
  std::copy(frames_.begin(), frames_.end(), observation);
}

StepResult FrameStack::step(const ActionRef& action, float* observation) {
  // The inner env writes into a scratch frame first: if it throws, the stack is unchanged.
  float* newest = frames_.data() + frames_.size() - frame_size_;
  const StepResult result = inner_env().step(action, scratch_.data());
  std::copy(frames_.begin() + static_cast<std::ptrdiff_t>(frame_size_), frames_.end(),
            frames_.begin());
  std::copy(scratch_.begin(), scratch_.end(), newest);
  std::copy(frames_.begin(), frames_.end(), observation);
  return result;
}

}  // namespace mnrl::envs
