#include "replay/transition_rows.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace mnrl::replay {
namespace {

// Appends `count` observation elements as floats (uint8 ones as their values).
void append_elements(core::ConstTypedPtr from, std::int64_t count, std::vector<float>& to) {
  if (from.dtype() == core::Dtype::float32) {
    to.insert(to.end(), from.floats(), from.floats() + count);
  } else {
    to.insert(to.end(), from.bytes(), from.bytes() + count);
  }
}

}  // namespace

TransitionRows::TransitionRows(std::int64_t observation_size, std::int64_t action_size)
    : observation_size_(observation_size), action_size_(action_size) {}

void TransitionRows::append(const Transition& transition) {
  append_elements(transition.observation, observation_size_, rows_);
  rows_.insert(rows_.end(), transition.action, transition.action + action_size_);
  rows_.push_back(transition.reward);
  append_elements(transition.next_observation, observation_size_, rows_);
  rows_.push_back(transition.terminated ? 1.0f : 0.0f);
  rows_.push_back(transition.discount);
  rows_.push_back(0.0f);  // the priority, written by take()
}

void TransitionRows::gather(std::int64_t count, float byte_scale, TransitionBatch& out) const {
  const auto n = static_cast<std::size_t>(count);
  const auto o = static_cast<std::size_t>(observation_size_);
  const auto a = static_cast<std::size_t>(action_size_);
  out.observations.resize(n * o);
  out.actions.resize(n * a);
  out.rewards.resize(n);
  out.next_observations.resize(n * o);
  out.terminated.resize(n);
  out.discounts.resize(n);
  out.indices.assign(n, 0);
  out.weights.assign(n, 1.0f);
  const auto scaled = [byte_scale](float value) { return value * byte_scale; };
  for (std::size_t i = 0; i < n; ++i) {
    const float* row = rows_.data() + i * static_cast<std::size_t>(row_floats());
    std::transform(row, row + o, out.observations.begin() + i * o, scaled);
    row += o;
    std::copy(row, row + a, out.actions.begin() + i * a);
    row += a;
    out.rewards[i] = *row++;
    std::transform(row, row + o, out.next_observations.begin() + i * o, scaled);
    row += o;
    out.terminated[i] = row[0] != 0 ? 1 : 0;
    out.discounts[i] = row[1];
  }
}

void TransitionRows::take(std::int64_t count, const float* priorities, float* out) {
  const std::int64_t width = row_floats();
  for (std::int64_t i = 0; i < count; ++i) {
    out = std::copy_n(rows_.begin() + i * width, width - 1, out);
    *out++ = priorities[i];
  }
  rows_.erase(rows_.begin(), rows_.begin() + count * width);
}

void for_each_transition(const float* in, std::int64_t count, std::int64_t observation_size,
                         std::int64_t action_size, core::Dtype dtype,
                         const std::function<void(const Transition&, float priority)>& use) {
  const auto o = static_cast<std::size_t>(observation_size);
  std::vector<std::uint8_t> bytes(dtype == core::Dtype::uint8 ? 2 * o : 0);
  // A row's observation as `dtype`: the floats themselves, or their values as bytes.
  const auto typed = [&](const float* values, std::size_t slot) -> core::ConstTypedPtr {
    if (dtype == core::Dtype::float32) return values;
    std::uint8_t* out = bytes.data() + slot * o;
    for (std::size_t k = 0; k < o; ++k) {
      if (!(values[k] >= 0.0f && values[k] <= 255.0f) || values[k] != std::floor(values[k])) {
        throw std::invalid_argument("a uint8 observation element of " +
                                    std::to_string(values[k]) + " in a transition");
      }
      out[k] = static_cast<std::uint8_t>(values[k]);
    }
    return static_cast<const std::uint8_t*>(out);
  };
  const std::int64_t width = 2 * observation_size + action_size + 4;
  for (std::int64_t i = 0; i < count; ++i) {
    const float* row = in + i * width;
    Transition transition;
    transition.observation = typed(row, 0);
    transition.action = row + observation_size;
    transition.reward = row[observation_size + action_size];
    transition.next_observation = typed(row + observation_size + action_size + 1, 1);
    const float* flags = row + 2 * observation_size + action_size + 1;
    transition.terminated = flags[0] != 0;
    transition.discount = flags[1];
    use(transition, flags[2]);
  }
}

}  // namespace mnrl::replay
