#include "agents/evaluation_memory.h"

#include <ATen/ops/zeros.h>

#include <algorithm>

namespace mnrl::agents {

void EvaluationMemory::prepare(std::int64_t batch, std::int64_t state_size, c10::Device device) {
  if (state_.defined() && state_.size(0) == batch) return;
  state_ = at::zeros({batch, state_size}, at::TensorOptions(device).dtype(at::kFloat));
  starts_.assign(static_cast<std::size_t>(batch), 1.0f);
}

void EvaluationMemory::stepped() { std::fill(starts_.begin(), starts_.end(), 0.0f); }

void EvaluationMemory::episodes_ended(const std::uint8_t* terminated,
                                      const std::uint8_t* truncated, std::int64_t batch) {
  if (static_cast<std::int64_t>(starts_.size()) != batch) return;
  for (std::int64_t i = 0; i < batch; ++i) {
    if (terminated[i] || truncated[i]) starts_[static_cast<std::size_t>(i)] = 1.0f;
  }
}

}  // namespace mnrl::agents
