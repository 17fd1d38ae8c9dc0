#include "envs/frame_stack.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace mnrl::envs {
namespace {

// Floats that hold `bytes` bytes.
std::size_t floats_for(std::size_t bytes) { return (bytes + sizeof(float) - 1) / sizeof(float); }

}  // namespace

FrameStack::FrameStack(std::unique_ptr<Env> env, int num_frames)
    : Wrapper(std::move(env), "FrameStack") {
  const std::string name = "FrameStack(" + spec_.id + ")";
  // A copy: spec_.observation_space is replaced below (and GCC 13 sees a reference into a
  // temporary).
  const Box box = expect_box(spec_.observation_space, name + ": observation space");
  if (num_frames < 1) {
    throw std::invalid_argument(name + ": num_frames is " + std::to_string(num_frames) +
                                ", must be >= 1");
  }
  dtype_ = box.dtype;
  frame_bytes_ = box.low.size() * core::element_bytes(dtype_);
  Box stacked{{}, {}, {}, box.dtype};
  if (box.shape.size() == 3) {  // [C, H, W]: frames stack on the channel axis
    stacked.shape = box.shape;
    stacked.shape[0] *= num_frames;
  } else {
    stacked.shape = {num_frames};
    stacked.shape.insert(stacked.shape.end(), box.shape.begin(), box.shape.end());
  }
  for (int k = 0; k < num_frames; ++k) {
    stacked.low.insert(stacked.low.end(), box.low.begin(), box.low.end());
    stacked.high.insert(stacked.high.end(), box.high.begin(), box.high.end());
  }
  stack_bytes_ = frame_bytes_ * static_cast<std::size_t>(num_frames);
  frames_.assign(floats_for(stack_bytes_), 0.0f);
  scratch_.assign(floats_for(frame_bytes_), 0.0f);
  spec_.observation_space = std::move(stacked);
}

core::TypedPtr FrameStack::frame(std::vector<float>& storage, std::size_t offset_bytes) const {
  auto* bytes = reinterpret_cast<std::uint8_t*>(storage.data()) + offset_bytes;
  if (dtype_ == core::Dtype::uint8) return bytes;
  return reinterpret_cast<float*>(bytes);
}

void FrameStack::reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) {
  auto* stack = reinterpret_cast<std::uint8_t*>(frames_.data());
  std::uint8_t* newest = stack + stack_bytes_ - frame_bytes_;
  inner_env().reset(frame(frames_, stack_bytes_ - frame_bytes_), seed);
  for (std::uint8_t* older = stack; older != newest; older += frame_bytes_) {
    std::memcpy(older, newest, frame_bytes_);
  }
  std::memcpy(observation.data(), stack, stack_bytes_);
}

StepResult FrameStack::step(const ActionRef& action, core::TypedPtr observation) {
  // The inner env writes into a scratch frame first: if it throws, the stack is unchanged.
  const StepResult result = inner_env().step(action, frame(scratch_, 0));
  auto* stack = reinterpret_cast<std::uint8_t*>(frames_.data());
  std::memmove(stack, stack + frame_bytes_, stack_bytes_ - frame_bytes_);
  std::memcpy(stack + stack_bytes_ - frame_bytes_, scratch_.data(), frame_bytes_);
  std::memcpy(observation.data(), stack, stack_bytes_);
  return result;
}

}  // namespace mnrl::envs
