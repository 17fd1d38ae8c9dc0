#include "replay/priorities.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <vector>

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

Priorities::Priorities(std::int64_t capacity, const PrioritizedReplayOptions& options,
                       std::string owner)
    : options_((validate(options), options)),
      owner_(std::move(owner)),
      sums_(capacity),
      mins_(capacity) {}

void Priorities::set_weight(std::int64_t slot, double weight) {
  sums_.set(slot, weight);
  mins_.set(slot, weight);
}

void Priorities::add(std::int64_t slot) {
  set_weight(slot, std::pow(max_priority_, options_.alpha));
}

void Priorities::sample(core::Rng& rng, std::int64_t batch_size, double beta, std::int64_t* slots,
                        float* weights) const {
  if (sums_.total() == 0.0) throw std::logic_error(owner_ + "::sample: the buffer is empty");
  if (batch_size < 0) {
    throw std::invalid_argument(owner_ + "::sample: negative batch_size " +
                                std::to_string(batch_size));
  }
  if (!(beta >= 0.0 && beta <= 1.0)) {
    throw std::invalid_argument(owner_ + "::sample: beta must be in [0, 1], got " + format(beta));
  }
  const double segment = sums_.total() / static_cast<double>(batch_size);
  for (std::int64_t k = 0; k < batch_size; ++k) {
    // find_prefix_sum clamps a mass that rounding put at or past the total.
    const double mass = (static_cast<double>(k) + rng.uniform()) * segment;
    slots[k] = sums_.find_prefix_sum(mass);
  }
  // w_i / max_k w_k with w_i = (N * q_i / total)^-beta: N and the total cancel, leaving
  // (q_i / q_min)^-beta. Every stored weight is positive, so q_min > 0.
  const double min_weight = mins_.min();
  for (std::int64_t k = 0; k < batch_size; ++k) {
    weights[k] = static_cast<float>(std::pow(sums_.get(slots[k]) / min_weight, -beta));
  }
}

void Priorities::update(const std::int64_t* slots, const float* td_errors, std::int64_t count,
                        std::int64_t stored) {
  if (count < 0) {
    throw std::invalid_argument(owner_ + "::update_priorities: negative count " +
                                std::to_string(count));
  }
  for (std::int64_t k = 0; k < count; ++k) {
    if (slots[k] < 0 || slots[k] >= stored) {
      throw std::invalid_argument(owner_ + "::update_priorities: slot " + std::to_string(slots[k]) +
                                  " is outside the " + std::to_string(stored) + " stored items");
    }
    if (!std::isfinite(td_errors[k])) {
      throw std::invalid_argument(owner_ + "::update_priorities: TD error " + format(td_errors[k]) +
                                  " for slot " + std::to_string(slots[k]) + " is not finite");
    }
  }
  for (std::int64_t k = 0; k < count; ++k) {
    const double p = std::abs(static_cast<double>(td_errors[k])) + options_.epsilon;
    set_weight(slots[k], std::pow(p, options_.alpha));
    max_priority_ = std::max(max_priority_, p);
  }
}

void Priorities::save_state(core::StateWriter& out, std::int64_t stored) const {
  out.tag(kTag);
  out.value(options_.alpha);
  out.value(max_priority_);
  std::vector<double> weights(static_cast<std::size_t>(stored));
  for (std::size_t s = 0; s < weights.size(); ++s) {
    weights[s] = sums_.get(static_cast<std::int64_t>(s));
  }
  out.values(weights);
}

void Priorities::load_state(core::StateReader& in, std::int64_t stored) {
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
  std::vector<double> weights(static_cast<std::size_t>(stored));
  in.values(weights);
  for (std::size_t s = 0; s < weights.size(); ++s) {
    if (!(weights[s] > 0.0) || !std::isfinite(weights[s])) {
      in.fail("slot " + std::to_string(s) + ": priority " + format(weights[s]) +
              " is not positive and finite");
    }
  }
  for (std::int64_t s = 0; s < sums_.capacity(); ++s) {
    if (s < stored) {
      set_weight(s, weights[static_cast<std::size_t>(s)]);
    } else {  // not stored: never drawn, and no part of the minimum
      sums_.set(s, 0.0);
      mins_.set(s, std::numeric_limits<double>::infinity());
    }
  }
  max_priority_ = max_priority;
}

}  // namespace mnrl::replay
