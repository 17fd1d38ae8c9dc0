#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/typed_ptr.h"
#include "replay/replay_buffer.h"

namespace mnrl::replay {

// Transitions as rows of floats, to send from an actor to a learner (Ape-X). A row is the
// observation, the action, the reward, the next observation, terminated (0 or 1), the discount
// and the priority (the |TD error| the actor measured); uint8 observations travel as their
// integer values, which floats hold exactly.
class TransitionRows {
 public:
  TransitionRows(std::int64_t observation_size, std::int64_t action_size);

  std::int64_t row_floats() const { return 2 * observation_size_ + action_size_ + 4; }
  std::int64_t rows() const { return static_cast<std::int64_t>(rows_.size()) / row_floats(); }

  // Appends a transition (its priority still to come).
  void append(const Transition& transition);
  // The first `count` rows as a batch for a network: observations times `byte_scale` where the
  // transitions' observations were uint8 (1 for float32 ones).
  void gather(std::int64_t count, float byte_scale, TransitionBatch& out) const;
  // Writes the first `count` rows, with priorities[0, count), to `out` (count * row_floats()
  // floats) and drops them; the rows after them come first from then on.
  void take(std::int64_t count, const float* priorities, float* out);

 private:
  std::int64_t observation_size_, action_size_;
  std::vector<float> rows_;
};

// Each of the `count` rows at `in` as a Transition with observations in `dtype` (converted
// back from their float values) and its priority. The transition's pointers are valid only
// during the call. Throws std::invalid_argument for a uint8 observation value that is not an
// integer in [0, 255] (a damaged message).
void for_each_transition(const float* in, std::int64_t count, std::int64_t observation_size,
                         std::int64_t action_size, core::Dtype dtype,
                         const std::function<void(const Transition&, float priority)>& use);

}  // namespace mnrl::replay
