#include "replay/prioritized_replay_buffer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "core/rng.h"
#include "core/state_stream.h"

namespace mnrl::replay {
namespace {

constexpr const char* kTag = "priorities";  // its section in a state stream

std::string format(double value) {
  std::ostringstream out;
  out.precision(15);
  out << value;
  return out.str();
}

}  // namespace

void validate(const PrioritizedReplayOptions& options) {
  if (!(options.alpha >= 0.0 && options.alpha <= 1.0)) {
    throw std::invalid_argument("per_alpha must be in [0, 1], got " + format(options.alpha));
  }
  if (!(options.beta0 >= 0.0 && options.beta0 <= 1.0)) {
    throw std::invalid_argument("per_beta0 must be in [0, 1], got " + format(options.beta0));
  }
  if (!(options.epsilon > 0.0) || !std::isfinite(options.epsilon)) {
    throw std::invalid_argument("per_epsilon must be positive and finite, got " +
                                format(options.epsilon));
  }
}

double annealed_beta(double beta0, double progress) {
  if (!(beta0 >= 0.0 && beta0 <= 1.0)) {
    throw std::invalid_argument("annealed_beta: beta0 must be in [0, 1], got " + format(beta0));
  }
  if (std::isnan(progress)) throw std::invalid_argument("annealed_beta: progress is NaN");
  return beta0 + (1.0 - beta0) * std::clamp(progress, 0.0, 1.0);
}

PrioritizedReplayBuffer::PrioritizedReplayBuffer(std::int64_t capacity,
                                                 std::int64_t observation_size,
                                                 std::int64_t action_size,
                                                 const PrioritizedReplayOptions& options,
                                                 core::Dtype observation_dtype, float byte_scale)
    // Options are checked before the (possibly large) buffer is allocated.
    : options_((validate(options), options)),
      buffer_(capacity, observation_size, action_size, observation_dtype, byte_scale),
      sums_(capacity),
      mins_(capacity) {}

double PrioritizedReplayBuffer::priority(std::int64_t slot) const {
  if (slot < 0 || slot >= size()) {
    throw std::out_of_range("PrioritizedReplayBuffer::priority: slot " + std::to_string(slot) +
                            " is outside the " + std::to_string(size()) + " stored transitions");
  }
  return sums_.get(slot);
}

void PrioritizedReplayBuffer::set_weight(std::int64_t slot, double weight) {
  sums_.set(slot, weight);
  mins_.set(slot, weight);
}

std::int64_t PrioritizedReplayBuffer::add(const Transition& transition) {
  const std::int64_t slot = buffer_.add(transition);
  set_weight(slot, std::pow(max_priority_, options_.alpha));
  return slot;
}

void PrioritizedReplayBuffer::sample(core::Rng& rng, std::int64_t batch_size, double beta,
                                     TransitionBatch& out) {
  if (size() == 0) throw std::logic_error("PrioritizedReplayBuffer::sample: the buffer is empty");
  if (batch_size < 0) {
    throw std::invalid_argument("PrioritizedReplayBuffer::sample: negative batch_size " +
                                std::to_string(batch_size));
  }
  if (!(beta >= 0.0 && beta <= 1.0)) {
    throw std::invalid_argument("PrioritizedReplayBuffer::sample: beta must be in [0, 1], got " +
                                format(beta));
  }
  const auto rows = static_cast<std::size_t>(batch_size);
  slots_.resize(rows);
  const double total = sums_.total();
  const double segment = total / static_cast<double>(batch_size);
  for (std::size_t k = 0; k < rows; ++k) {
    // find_prefix_sum clamps a mass that rounding put at or past the total.
    const double mass = (static_cast<double>(k) + rng.uniform()) * segment;
    slots_[k] = sums_.find_prefix_sum(mass);
  }
  buffer_.gather(slots_.data(), batch_size, out);

  // w_i / max_k w_k with w_i = (N * q_i / total)^-beta: N and the total cancel, leaving
  // (q_i / q_min)^-beta. Every stored weight is positive, so q_min > 0.
  const double min_weight = mins_.min();
  for (std::size_t k = 0; k < rows; ++k) {
    const double q = sums_.get(slots_[k]);
    out.weights[k] = static_cast<float>(std::pow(q / min_weight, -beta));
  }
}

void PrioritizedReplayBuffer::update_priorities(const std::int64_t* slots, const float* td_errors,
                                                std::int64_t count) {
  if (count < 0) {
    throw std::invalid_argument("PrioritizedReplayBuffer::update_priorities: negative count " +
                                std::to_string(count));
  }
  for (std::int64_t k = 0; k < count; ++k) {
    if (slots[k] < 0 || slots[k] >= size()) {
      throw std::invalid_argument("PrioritizedReplayBuffer::update_priorities: slot " +
                                  std::to_string(slots[k]) + " is outside the " +
                                  std::to_string(size()) + " stored transitions");
    }
    if (!std::isfinite(td_errors[k])) {
      throw std::invalid_argument("PrioritizedReplayBuffer::update_priorities: TD error " +
                                  format(td_errors[k]) + " for slot " + std::to_string(slots[k]) +
                                  " is not finite");
    }
  }
  for (std::int64_t k = 0; k < count; ++k) {
    const double p = std::abs(static_cast<double>(td_errors[k])) + options_.epsilon;
    set_weight(slots[k], std::pow(p, options_.alpha));
    max_priority_ = std::max(max_priority_, p);
  }
}

void PrioritizedReplayBuffer::save_state(core::StateWriter& out) const {
  buffer_.save_state(out);
  out.tag(kTag);
  out.value(options_.alpha);
  out.value(max_priority_);
  std::vector<double> weights(static_cast<std::size_t>(size()));
  for (std::size_t s = 0; s < weights.size(); ++s) {
    weights[s] = sums_.get(static_cast<std::int64_t>(s));
  }
  out.values(weights);
}

void PrioritizedReplayBuffer::load_state(core::StateReader& in) {
  buffer_.load_state(in);
  in.expect_tag(kTag);
  // Stored weights are p^alpha: under another alpha they would be wrong.
  const auto alpha = in.value<double>();
  if (alpha != options_.alpha) {
    in.fail("saved with per_alpha " + format(alpha) + ", loading with per_alpha " +
            format(options_.alpha));
  }
  const auto max_priority = in.value<double>();
  if (!(max_priority > 0.0) || !std::isfinite(max_priority)) {
    in.fail("max priority " + format(max_priority) + " is not positive and finite");
  }
  std::vector<double> weights(static_cast<std::size_t>(size()));
  in.values(weights);
  for (std::size_t s = 0; s < weights.size(); ++s) {
    if (!(weights[s] > 0.0) || !std::isfinite(weights[s])) {
      in.fail("slot " + std::to_string(s) + ": priority " + format(weights[s]) +
              " is not positive and finite");
    }
  }
  for (std::int64_t s = 0; s < capacity(); ++s) {
    if (s < size()) {
      set_weight(s, weights[static_cast<std::size_t>(s)]);
    } else {  // not stored: never drawn, and no part of the minimum
      sums_.set(s, 0.0);
      mins_.set(s, std::numeric_limits<double>::infinity());
    }
  }
  max_priority_ = max_priority;
}

}  // namespace mnrl::replay
