#pragma once

#include <ATen/core/Tensor.h>

namespace mnrl::agents {

// A whole rollout as tensors over the buffer's memory, for an update.
struct RolloutBatch {
  at::Tensor observations;  // [n, observation_size]
  at::Tensor actions;       // [n] int64 (Discrete) or [n, action_size] float (Box)
  at::Tensor log_probs;     // [n] at collection time
  at::Tensor values;        // [n] at collection time
  at::Tensor advantages;    // [n] GAE
  at::Tensor returns;       // [n] advantages + values

  // Rows `rows` (int64 indices) of every tensor.
  RolloutBatch select(const at::Tensor& rows) const;
};

}  // namespace mnrl::agents
