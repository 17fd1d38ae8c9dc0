#include "replay/prioritized_replay_buffer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "core/rng.h"
#include "core/files.h"
#include "replay/binary_io.h"

namespace mnrl::replay {
namespace {

constexpr char kMagic[8] = {'M', 'N', 'R', 'L', 'P', 'R', 'I', 'O'};
constexpr std::uint32_t kVersion = 1;
constexpr const char* kWhat = "priorities file";  // in truncation errors
// Magic, version, capacity, size, next_slot, alpha, max priority.
constexpr std::uint64_t kHeaderBytes = sizeof(kMagic) + sizeof(std::uint32_t) + 3 * 8 + 2 * 8;

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
                                                 const PrioritizedReplayOptions& options)
    // Options are checked before the (possibly large) buffer is allocated.
    : PrioritizedReplayBuffer(
          (validate(options), ReplayBuffer(capacity, observation_size, action_size)), options) {}

PrioritizedReplayBuffer::PrioritizedReplayBuffer(ReplayBuffer buffer,
                                                 const PrioritizedReplayOptions& options)
    : options_(options),
      buffer_(std::move(buffer)),
      sums_(buffer_.capacity()),
      mins_(buffer_.capacity()) {}

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

std::string PrioritizedReplayBuffer::priorities_path(const std::string& path) {
  return path + ".priorities";
}

void PrioritizedReplayBuffer::save(const std::string& path) const {
  buffer_.save(path);
  const auto n = static_cast<std::size_t>(size());
  std::string content;
  content.reserve(kHeaderBytes + n * sizeof(double));
  append(content, kMagic, sizeof(kMagic));
  append_value(content, kVersion);
  for (const std::int64_t v : {capacity(), size(), next_slot()}) append_value(content, v);
  append_value(content, options_.alpha);
  append_value(content, max_priority_);
  for (std::size_t s = 0; s < n; ++s) {
    append_value(content, sums_.get(static_cast<std::int64_t>(s)));
  }
  core::write_file_atomically(priorities_path(path), content);
}

PrioritizedReplayBuffer PrioritizedReplayBuffer::load(const std::string& path,
                                                      std::int64_t capacity,
                                                      std::int64_t observation_size,
                                                      std::int64_t action_size,
                                                      const PrioritizedReplayOptions& options) {
  validate(options);
  PrioritizedReplayBuffer loaded(ReplayBuffer::load(path, capacity, observation_size, action_size),
                                 options);

  const std::string file = priorities_path(path);
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read priorities file '" + file + "'");
  char magic[sizeof(kMagic)] = {};
  in.read(magic, sizeof(magic));
  if (static_cast<std::size_t>(in.gcount()) != sizeof(magic) ||
      std::memcmp(magic, kMagic, sizeof(kMagic)) != 0) {
    throw std::runtime_error(file + ": not a priorities file (expected it to start with '" +
                             std::string(kMagic, sizeof(kMagic)) + "')");
  }
  std::uint32_t version = 0;
  read_exact(in, &version, 1, file, kWhat);
  if (version != kVersion) {
    throw std::runtime_error(file + ": priorities format version " + std::to_string(version) +
                             ", expected " + std::to_string(kVersion));
  }
  std::int64_t position[3] = {};
  double alpha = 0.0;
  double max_priority = 0.0;
  read_exact(in, position, 3, file, kWhat);
  read_exact(in, &alpha, 1, file, kWhat);
  read_exact(in, &max_priority, 1, file, kWhat);

  const char* names[3] = {"capacity", "size", "next_slot"};
  const std::int64_t expected[3] = {loaded.capacity(), loaded.size(), loaded.next_slot()};
  for (int i = 0; i < 3; ++i) {
    if (position[i] != expected[i]) {
      throw std::runtime_error(file + ": " + names[i] + " is " + std::to_string(position[i]) +
                               " but the replay buffer '" + path + "' has " +
                               std::to_string(expected[i]) + ": the files do not belong together");
    }
  }
  // Stored weights are p^alpha: under another alpha they would be wrong.
  if (alpha != options.alpha) {
    throw std::runtime_error(file + ": saved with per_alpha " + format(alpha) +
                             ", loading with per_alpha " + format(options.alpha));
  }
  if (!(max_priority > 0.0) || !std::isfinite(max_priority)) {
    throw std::runtime_error(file + ": max priority " + format(max_priority) +
                             " is not positive and finite");
  }

  const auto n = static_cast<std::size_t>(loaded.size());
  const std::uint64_t expected_bytes = kHeaderBytes + n * sizeof(double);
  std::error_code error;
  const std::uint64_t found_bytes = std::filesystem::file_size(file, error);
  if (error) throw std::runtime_error("cannot read priorities file '" + file + "'");
  if (found_bytes != expected_bytes) {
    throw std::runtime_error(file + ": " + std::to_string(found_bytes) + " bytes, expected " +
                             std::to_string(expected_bytes) + " for " + std::to_string(n) +
                             " priorities");
  }
  std::vector<double> weights(n);
  read_exact(in, weights.data(), n, file, kWhat);
  for (std::size_t s = 0; s < n; ++s) {
    if (!(weights[s] > 0.0) || !std::isfinite(weights[s])) {
      throw std::runtime_error(file + ": slot " + std::to_string(s) + ": priority " +
                               format(weights[s]) + " is not positive and finite");
    }
    loaded.set_weight(static_cast<std::int64_t>(s), weights[s]);
  }
  loaded.max_priority_ = max_priority;
  return loaded;
}

}  // namespace mnrl::replay
