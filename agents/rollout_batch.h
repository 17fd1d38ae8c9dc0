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
  // Recurrent policies: the memory before each row's step [n, state_size] and whether its
  // observation began an episode [n] (float); undefined otherwise.
  at::Tensor memory;
  at::Tensor episode_starts;

  // Rows `rows` (int64 indices) of every tensor.
  RolloutBatch select(const at::Tensor& rows) const;
};

// The rows of one gradient step: order[start, start + count) of a permutation of the
// rollout's rows (int64, on the host), or, with `order` undefined, the whole rollout. For a
// recurrent policy the rows are whole sequences laid out [step][sequence] (the whole rollout
// is: its sequences are the envs'), as ActorCriticAgent::minibatch_order() gives them.
struct Minibatch {
  at::Tensor order;
  std::int64_t start = 0;
  std::int64_t count = 0;
};

}  // namespace mnrl::agents
