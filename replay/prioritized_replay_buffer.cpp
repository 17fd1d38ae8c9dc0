#include "replay/prioritized_replay_buffer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "core/rng.h"
#include "core/state_stream.h"

namespace mnrl::replay {

PrioritizedReplayBuffer::PrioritizedReplayBuffer(std::int64_t capacity,
                                                 std::int64_t observation_size,
                                                 std::int64_t action_size,
                                                 const PrioritizedReplayOptions& options,
                                                 core::Dtype observation_dtype, float byte_scale)
    // Options are checked before the (possibly large) buffer is allocated.
    : buffer_((validate(options), capacity), observation_size, action_size, observation_dtype,
              byte_scale),
      priorities_(capacity, options, "PrioritizedReplayBuffer") {}

double PrioritizedReplayBuffer::priority(std::int64_t slot) const {
  if (slot < 0 || slot >= size()) {
    throw std::out_of_range("PrioritizedReplayBuffer::priority: slot " + std::to_string(slot) +
                            " is outside the " + std::to_string(size()) + " stored transitions");
  }
  return priorities_.weight(slot);
}

std::int64_t PrioritizedReplayBuffer::add(const Transition& transition) {
  const std::int64_t slot = buffer_.add(transition);
  priorities_.add(slot);
  return slot;
}

void PrioritizedReplayBuffer::sample(core::Rng& rng, std::int64_t batch_size, double beta,
                                     TransitionBatch& out) {
  if (size() == 0) throw std::logic_error("PrioritizedReplayBuffer::sample: the buffer is empty");
  const auto rows = static_cast<std::size_t>(std::max<std::int64_t>(batch_size, 0));
  slots_.resize(rows);
  weights_.resize(rows);
  priorities_.sample(rng, batch_size, beta, slots_.data(), weights_.data());
  buffer_.gather(slots_.data(), batch_size, out);
  std::copy(weights_.begin(), weights_.end(), out.weights.begin());
}

void PrioritizedReplayBuffer::update_priorities(const std::int64_t* slots, const float* td_errors,
                                                std::int64_t count) {
  priorities_.update(slots, td_errors, count, size());
}

void PrioritizedReplayBuffer::save_state(core::StateWriter& out) const {
  buffer_.save_state(out);
  priorities_.save_state(out, size());
}

void PrioritizedReplayBuffer::load_state(core::StateReader& in) {
  buffer_.load_state(in);
  priorities_.load_state(in, size());
}

}  // namespace mnrl::replay
