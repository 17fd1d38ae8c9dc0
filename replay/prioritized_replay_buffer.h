#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "replay/priorities.h"
#include "replay/replay_buffer.h"

namespace mnrl::core {
class Rng;
class StateReader;
class StateWriter;
}  // namespace mnrl::core

namespace mnrl::replay {

// A ReplayBuffer whose slots have Priorities: each slot's sampling weight p^alpha, where p =
// |TD error| + epsilon. A new transition gets the largest priority seen so far (1 at first).
class PrioritizedReplayBuffer {
 public:
  // Throws std::invalid_argument for invalid options (see validate) or sizes (see ReplayBuffer).
  PrioritizedReplayBuffer(std::int64_t capacity, std::int64_t observation_size,
                          std::int64_t action_size, const PrioritizedReplayOptions& options = {},
                          core::Dtype observation_dtype = core::Dtype::float32,
                          float byte_scale = 1.0f);

  const PrioritizedReplayOptions& options() const { return priorities_.options(); }
  const ReplayBuffer& buffer() const { return buffer_; }
  std::int64_t capacity() const { return buffer_.capacity(); }
  std::int64_t size() const { return buffer_.size(); }
  std::int64_t next_slot() const { return buffer_.next_slot(); }
  std::int64_t observation_size() const { return buffer_.observation_size(); }
  std::int64_t action_size() const { return buffer_.action_size(); }

  // The largest priority p seen so far (before the ^alpha), initially 1.
  double max_priority() const { return priorities_.max_priority(); }
  // The sampling weight p^alpha of `slot`. Throws std::out_of_range for a slot outside
  // [0, size()).
  double priority(std::int64_t slot) const;
  // Sum of the sampling weights of all stored transitions.
  double total_priority() const { return priorities_.total(); }

  // Copies the transition into next_slot() (overwriting the oldest once full) with sampling
  // weight max_priority()^alpha, and returns the slot.
  std::int64_t add(const Transition& transition);

  // Draws `batch_size` slots (with replacement) with probability P(i) = p_i^alpha / sum_k
  // p_k^alpha, stratified as in baselines: the total is cut into batch_size equal segments and
  // one uniform draw falls in each. Rows come in segment order. Fills out.indices with the
  // slots and out.weights with the importance weights w_i = (N * P(i))^-beta / max_k (N *
  // P(k))^-beta, N = size(), the maximum taken over the stored transitions (from the MinTree);
  // that is w_i = (q_i / q_min)^-beta for sampling weights q = p^alpha, in (0, 1], as floats.
  // Not const: uses an internal slot array, so nothing allocates once `out` and that array
  // have reached batch_size.
  // Throws std::logic_error when empty, std::invalid_argument for a negative batch_size or a
  // beta outside [0, 1].
  void sample(core::Rng& rng, std::int64_t batch_size, double beta, TransitionBatch& out);

  // Sets the priority of each slots[k] to |td_errors[k]| + epsilon (sampling weight its
  // ^alpha) and raises max_priority() to the largest of them. A slot listed twice keeps the
  // last value. Checks everything first and throws std::invalid_argument, changing nothing,
  // for a negative count, a slot outside [0, size()) or a non-finite TD error.
  void update_priorities(const std::int64_t* slots, const float* td_errors, std::int64_t count);

  // The buffer's state section (ReplayBuffer::save_state), then the section "priorities":
  // alpha, the largest priority and the size() sampling weights (doubles). load_state() restores
  // both exactly and throws core::StateError naming the source for a malformed or truncated
  // state, weights that are not positive and finite, or priorities saved under another alpha.
  // After a throw the contents are unspecified.
  void save_state(core::StateWriter& out) const;
  void load_state(core::StateReader& in);

 private:
  ReplayBuffer buffer_;
  Priorities priorities_;
  std::vector<std::int64_t> slots_;  // sample()'s draws
  std::vector<float> weights_;       // and their importance weights
};

}  // namespace mnrl::replay
