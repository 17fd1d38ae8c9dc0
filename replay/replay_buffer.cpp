#include "replay/replay_buffer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "core/rng.h"
#include "core/state_stream.h"

namespace mnrl::replay {
namespace {

constexpr const char* kTag = "replay buffer";  // its section in a state stream

std::size_t to_size(std::int64_t n) { return static_cast<std::size_t>(n); }

// Throws naming the first slot of `values` ([slots, width]) holding a non-finite float.
void check_finite(const float* values, std::int64_t slots, std::int64_t width, const char* what,
                  const core::StateReader& in) {
  const std::size_t n = to_size(slots * width);
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(values[i])) {
      in.fail("slot " + std::to_string(i / to_size(width)) + ": non-finite " + what);
    }
  }
}

}  // namespace

ReplayBuffer::ReplayBuffer(std::int64_t capacity, std::int64_t observation_size,
                           std::int64_t action_size, core::Dtype observation_dtype,
                           float byte_scale)
    : capacity_(capacity),
      observation_size_(observation_size),
      action_size_(action_size),
      byte_scale_(byte_scale) {
  if (capacity < 1 || observation_size < 1 || action_size < 1) {
    throw std::invalid_argument("ReplayBuffer: capacity (" + std::to_string(capacity) +
                                "), observation_size (" + std::to_string(observation_size) +
                                ") and action_size (" + std::to_string(action_size) +
                                ") must be positive");
  }
  const std::size_t n = to_size(capacity);
  observations_ = core::TypedRows(observation_dtype, n, to_size(observation_size));
  next_observations_ = core::TypedRows(observation_dtype, n, to_size(observation_size));
  actions_.resize(n * to_size(action_size));
  rewards_.resize(n);
  discounts_.resize(n);
  terminated_.resize(n);
}

std::int64_t ReplayBuffer::add(const Transition& transition) {
  const std::int64_t slot = next_slot_;
  const std::size_t s = to_size(slot);
  const std::size_t act = to_size(action_size_);
  observations_.copy_row(s, transition.observation);
  std::copy_n(transition.action, act, &actions_[s * act]);
  next_observations_.copy_row(s, transition.next_observation);
  rewards_[s] = transition.reward;
  terminated_[s] = transition.terminated ? 1 : 0;
  discounts_[s] = transition.discount;
  next_slot_ = (slot + 1) % capacity_;
  size_ = std::min(size_ + 1, capacity_);
  return slot;
}

void ReplayBuffer::gather(const std::int64_t* slots, std::int64_t count,
                          TransitionBatch& out) const {
  if (count < 0) {
    throw std::invalid_argument("ReplayBuffer::gather: negative count " + std::to_string(count));
  }
  out.indices.resize(to_size(count));
  // memmove: `slots` may be out.indices itself.
  if (count > 0) std::memmove(out.indices.data(), slots, to_size(count) * sizeof(std::int64_t));
  gather_rows(count, out);
}

void ReplayBuffer::sample(core::Rng& rng, std::int64_t batch_size, TransitionBatch& out) const {
  if (size_ == 0) throw std::logic_error("ReplayBuffer::sample: the buffer is empty");
  if (batch_size < 0) {
    throw std::invalid_argument("ReplayBuffer::sample: negative batch_size " +
                                std::to_string(batch_size));
  }
  out.indices.resize(to_size(batch_size));
  const auto n = static_cast<std::uint64_t>(size_);
  for (auto& slot : out.indices) slot = static_cast<std::int64_t>(rng.below(n));
  gather_rows(batch_size, out);
}

void ReplayBuffer::gather_rows(std::int64_t count, TransitionBatch& out) const {
  const std::size_t rows = to_size(count);
  const std::size_t obs = to_size(observation_size_);
  const std::size_t act = to_size(action_size_);
  // resize() never gives capacity back, so once a batch has been this large nothing allocates.
  out.observations.resize(rows * obs);
  out.actions.resize(rows * act);
  out.rewards.resize(rows);
  out.next_observations.resize(rows * obs);
  out.terminated.resize(rows);
  out.discounts.resize(rows);
  out.weights.resize(rows);
  for (std::size_t row = 0; row < rows; ++row) {
    const std::int64_t slot = out.indices[row];
    if (slot < 0 || slot >= size_) {
      throw std::out_of_range("ReplayBuffer::gather: slot " + std::to_string(slot) +
                              " is outside the " + std::to_string(size_) + " stored transitions");
    }
    const std::size_t s = to_size(slot);
    observations_.row_as_floats(s, &out.observations[row * obs], byte_scale_);
    std::copy_n(&actions_[s * act], act, &out.actions[row * act]);
    next_observations_.row_as_floats(s, &out.next_observations[row * obs], byte_scale_);
    out.rewards[row] = rewards_[s];
    out.terminated[row] = terminated_[s];
    out.discounts[row] = discounts_[s];
    out.weights[row] = 1.0f;
  }
}

void ReplayBuffer::save_state(core::StateWriter& out) const {
  const std::size_t n = to_size(size_);
  out.tag(kTag);
  const auto dtype = static_cast<std::int64_t>(observations_.dtype());
  for (const std::int64_t v :
       {capacity_, observation_size_, action_size_, dtype, size_, next_slot_}) {
    out.value(v);
  }
  observations_.save_rows(out, n);
  out.values(actions_.data(), n * to_size(action_size_));
  out.values(rewards_.data(), n);
  next_observations_.save_rows(out, n);
  out.values(terminated_.data(), n);
  out.values(discounts_.data(), n);
}

void ReplayBuffer::load_state(core::StateReader& in) {
  in.expect_tag(kTag);
  const char* names[4] = {"capacity", "observation_size", "action_size",
                          "observation dtype (0 float32, 1 uint8)"};
  const std::int64_t expected[4] = {capacity_, observation_size_, action_size_,
                                    static_cast<std::int64_t>(observations_.dtype())};
  for (int i = 0; i < 4; ++i) {
    const auto found = in.value<std::int64_t>();
    if (found != expected[i]) {
      in.fail(std::string(names[i]) + " is " + std::to_string(found) + ", expected " +
              std::to_string(expected[i]));
    }
  }
  const auto size = in.value<std::int64_t>();
  const auto next_slot = in.value<std::int64_t>();
  const bool position_ok =
      size >= 0 && size <= capacity_ &&
      (size < capacity_ ? next_slot == size : next_slot >= 0 && next_slot < capacity_);
  if (!position_ok) {
    in.fail("invalid position: size " + std::to_string(size) + ", next_slot " +
            std::to_string(next_slot) + " with capacity " + std::to_string(capacity_));
  }

  const std::size_t n = to_size(size);
  observations_.load_rows(in, n);
  in.values(actions_.data(), n * to_size(action_size_));
  in.values(rewards_.data(), n);
  next_observations_.load_rows(in, n);
  in.values(terminated_.data(), n);
  in.values(discounts_.data(), n);

  if (observations_.dtype() == core::Dtype::float32) {
    check_finite(observations_.data().floats(), size, observation_size_, "observation", in);
    check_finite(next_observations_.data().floats(), size, observation_size_, "next observation",
                 in);
  }
  check_finite(actions_.data(), size, action_size_, "action", in);
  check_finite(rewards_.data(), size, 1, "reward", in);
  for (std::size_t s = 0; s < n; ++s) {
    if (terminated_[s] > 1) {
      in.fail("slot " + std::to_string(s) + ": terminated flag is " +
              std::to_string(terminated_[s]) + ", expected 0 or 1");
    }
    const float discount = discounts_[s];
    if (!(discount >= 0.0f && discount <= 1.0f)) {
      in.fail("slot " + std::to_string(s) + ": discount " + std::to_string(discount) +
              " is not in [0, 1]");
    }
  }
  size_ = size;
  next_slot_ = next_slot;
}

}  // namespace mnrl::replay
