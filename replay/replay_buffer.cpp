#include "replay/replay_buffer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "core/rng.h"
#include "core/files.h"
#include "replay/binary_io.h"

namespace mnrl::replay {
namespace {

constexpr char kMagic[8] = {'M', 'N', 'R', 'L', 'R', 'P', 'L', 'B'};
constexpr std::uint32_t kVersion = 1;
constexpr const char* kWhat = "replay buffer file";  // in truncation errors
// Magic, version, then capacity, observation_size, action_size, size, next_slot.
constexpr std::uint64_t kHeaderBytes = sizeof(kMagic) + sizeof(std::uint32_t) + 5 * 8;

std::size_t to_size(std::int64_t n) { return static_cast<std::size_t>(n); }

// Bytes one stored slot takes in the file.
std::uint64_t slot_bytes(std::int64_t observation_size, std::int64_t action_size) {
  return static_cast<std::uint64_t>(2 * observation_size + action_size + 2) * sizeof(float) +
         sizeof(std::uint8_t);
}

// Throws naming the first slot of `values` ([slots, width]) holding a non-finite float.
void check_finite(const std::vector<float>& values, std::int64_t slots, std::int64_t width,
                  const char* what, const std::string& path) {
  const std::size_t n = to_size(slots * width);
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(values[i])) {
      throw std::runtime_error(path + ": slot " + std::to_string(i / to_size(width)) +
                               ": non-finite " + what);
    }
  }
}

}  // namespace

ReplayBuffer::ReplayBuffer(std::int64_t capacity, std::int64_t observation_size,
                           std::int64_t action_size)
    : capacity_(capacity), observation_size_(observation_size), action_size_(action_size) {
  if (capacity < 1 || observation_size < 1 || action_size < 1) {
    throw std::invalid_argument("ReplayBuffer: capacity (" + std::to_string(capacity) +
                                "), observation_size (" + std::to_string(observation_size) +
                                ") and action_size (" + std::to_string(action_size) +
                                ") must be positive");
  }
  const std::size_t n = to_size(capacity);
  observations_.resize(n * to_size(observation_size));
  next_observations_.resize(n * to_size(observation_size));
  actions_.resize(n * to_size(action_size));
  rewards_.resize(n);
  discounts_.resize(n);
  terminated_.resize(n);
}

std::int64_t ReplayBuffer::add(const Transition& transition) {
  const std::int64_t slot = next_slot_;
  const std::size_t s = to_size(slot);
  const std::size_t obs = to_size(observation_size_);
  const std::size_t act = to_size(action_size_);
  std::copy_n(transition.observation, obs, &observations_[s * obs]);
  std::copy_n(transition.action, act, &actions_[s * act]);
  std::copy_n(transition.next_observation, obs, &next_observations_[s * obs]);
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
    std::copy_n(&observations_[s * obs], obs, &out.observations[row * obs]);
    std::copy_n(&actions_[s * act], act, &out.actions[row * act]);
    std::copy_n(&next_observations_[s * obs], obs, &out.next_observations[row * obs]);
    out.rewards[row] = rewards_[s];
    out.terminated[row] = terminated_[s];
    out.discounts[row] = discounts_[s];
    out.weights[row] = 1.0f;
  }
}

void ReplayBuffer::save(const std::string& path) const {
  const std::size_t n = to_size(size_);
  const std::size_t obs = to_size(observation_size_);
  const std::size_t act = to_size(action_size_);
  std::string content;
  content.reserve(kHeaderBytes + n * slot_bytes(observation_size_, action_size_));
  append(content, kMagic, sizeof(kMagic));
  append_value(content, kVersion);
  for (const std::int64_t v : {capacity_, observation_size_, action_size_, size_, next_slot_}) {
    append_value(content, v);
  }
  append(content, observations_.data(), n * obs);
  append(content, actions_.data(), n * act);
  append(content, rewards_.data(), n);
  append(content, next_observations_.data(), n * obs);
  append(content, terminated_.data(), n);
  append(content, discounts_.data(), n);
  core::write_file_atomically(path, content);
}

ReplayBuffer ReplayBuffer::load(const std::string& path, std::int64_t capacity,
                                std::int64_t observation_size, std::int64_t action_size) {
  ReplayBuffer buffer(capacity, observation_size, action_size);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read replay buffer file '" + path + "'");

  char magic[sizeof(kMagic)] = {};
  in.read(magic, sizeof(magic));
  if (static_cast<std::size_t>(in.gcount()) != sizeof(magic) ||
      std::memcmp(magic, kMagic, sizeof(kMagic)) != 0) {
    throw std::runtime_error(path + ": not a replay buffer file (expected it to start with '" +
                             std::string(kMagic, sizeof(kMagic)) + "')");
  }
  std::uint32_t version = 0;
  std::int64_t header[5] = {};
  in.read(reinterpret_cast<char*>(&version), sizeof(version));
  if (!in) throw std::runtime_error(path + ": truncated replay buffer header");
  if (version != kVersion) {
    throw std::runtime_error(path + ": replay buffer format version " + std::to_string(version) +
                             ", expected " + std::to_string(kVersion));
  }
  in.read(reinterpret_cast<char*>(header), sizeof(header));
  if (!in) throw std::runtime_error(path + ": truncated replay buffer header");

  const char* names[3] = {"capacity", "observation_size", "action_size"};
  const std::int64_t expected[3] = {capacity, observation_size, action_size};
  for (int i = 0; i < 3; ++i) {
    if (header[i] != expected[i]) {
      throw std::runtime_error(path + ": " + names[i] + " is " + std::to_string(header[i]) +
                               ", expected " + std::to_string(expected[i]));
    }
  }
  const std::int64_t size = header[3];
  const std::int64_t next_slot = header[4];
  const bool position_ok =
      size >= 0 && size <= capacity &&
      (size < capacity ? next_slot == size : next_slot >= 0 && next_slot < capacity);
  if (!position_ok) {
    throw std::runtime_error(path + ": invalid position: size " + std::to_string(size) +
                             ", next_slot " + std::to_string(next_slot) + " with capacity " +
                             std::to_string(capacity));
  }

  const std::uint64_t expected_bytes =
      kHeaderBytes + static_cast<std::uint64_t>(size) * slot_bytes(observation_size, action_size);
  std::error_code error;
  const std::uint64_t found_bytes = std::filesystem::file_size(path, error);
  if (error) throw std::runtime_error("cannot read replay buffer file '" + path + "'");
  if (found_bytes < expected_bytes) {
    throw std::runtime_error(path + ": truncated: " + std::to_string(size) + " transitions need " +
                             std::to_string(expected_bytes) + " bytes, found " +
                             std::to_string(found_bytes));
  }
  if (found_bytes > expected_bytes) {
    throw std::runtime_error(path + ": " + std::to_string(found_bytes - expected_bytes) +
                             " unexpected bytes after the " + std::to_string(size) +
                             " transitions");
  }

  const std::size_t n = to_size(size);
  const std::size_t obs = to_size(observation_size);
  const std::size_t act = to_size(action_size);
  read_exact(in, buffer.observations_.data(), n * obs, path, kWhat);
  read_exact(in, buffer.actions_.data(), n * act, path, kWhat);
  read_exact(in, buffer.rewards_.data(), n, path, kWhat);
  read_exact(in, buffer.next_observations_.data(), n * obs, path, kWhat);
  read_exact(in, buffer.terminated_.data(), n, path, kWhat);
  read_exact(in, buffer.discounts_.data(), n, path, kWhat);

  check_finite(buffer.observations_, size, observation_size, "observation", path);
  check_finite(buffer.actions_, size, action_size, "action", path);
  check_finite(buffer.rewards_, size, 1, "reward", path);
  check_finite(buffer.next_observations_, size, observation_size, "next observation", path);
  for (std::size_t s = 0; s < n; ++s) {
    if (buffer.terminated_[s] > 1) {
      throw std::runtime_error(path + ": slot " + std::to_string(s) + ": terminated flag is " +
                               std::to_string(buffer.terminated_[s]) + ", expected 0 or 1");
    }
    const float discount = buffer.discounts_[s];
    if (!(discount >= 0.0f && discount <= 1.0f)) {
      throw std::runtime_error(path + ": slot " + std::to_string(s) + ": discount " +
                               std::to_string(discount) + " is not in [0, 1]");
    }
  }
  buffer.size_ = size;
  buffer.next_slot_ = next_slot;
  return buffer;
}

}  // namespace mnrl::replay
