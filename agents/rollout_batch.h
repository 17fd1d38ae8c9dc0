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

// The rows of one gradient step: order[start, start + count) of a permutation of the
// rollout's rows (int64, on the host), or, with `order` undefined, the whole rollout.
struct Minibatch {
  at::Tensor order;
  std::int64_t start = 0;
  std::int64_t count = 0;
};

}  // namespace mnrl::agents
