#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/typed_rows.h"

namespace mnrl::core {
class Rng;
class StateReader;
class StateWriter;
}  // namespace mnrl::core

namespace mnrl::replay {

// One transition as plain memory. With n-step returns (see NStepAccumulator) `reward` is the
// discounted sum of up to n rewards and `discount` is gamma^k for the k steps summed, so the
// learner's target is reward + discount * (1 - terminated) * max_a Q(next_observation, a).
struct Transition {
  core::ConstTypedPtr observation;  // observation_size elements of the buffer's dtype
  const float* action = nullptr;    // action_size floats (a Discrete index as a float)
  float reward = 0.0f;
  core::ConstTypedPtr next_observation;  // observation_size elements
  bool terminated = false;               // a true end: no bootstrap
  float discount = 1.0f;                 // applied to the bootstrap value
};

// A batch drawn from a buffer, rows in draw order, observations as floats (the batch goes to a
// network); reused between draws (no reallocation once it has reached the batch size).
struct TransitionBatch {
  std::vector<float> observations;       // [batch, observation_size]
  std::vector<float> actions;            // [batch, action_size]
  std::vector<float> rewards;            // [batch]
  std::vector<float> next_observations;  // [batch, observation_size]
  std::vector<std::uint8_t> terminated;  // [batch]
  std::vector<float> discounts;          // [batch]
  std::vector<std::int64_t> indices;     // [batch] buffer slots, for priority updates
  std::vector<float> weights;            // [batch] importance weights (1 for uniform sampling)
};

// Uniform experience replay: a circular buffer preallocated at `capacity` transitions, stored
// as flat arrays (observations in their own dtype: uint8 ones take a quarter of the memory);
// adding overwrites the oldest transition once full. No allocation per add or per sample.
class ReplayBuffer {
 public:
  // Throws std::invalid_argument for a capacity, observation_size or action_size < 1.
  ReplayBuffer(std::int64_t capacity, std::int64_t observation_size, std::int64_t action_size,
               core::Dtype observation_dtype = core::Dtype::float32, float byte_scale = 1.0f);

  std::int64_t capacity() const { return capacity_; }
  std::int64_t size() const { return size_; }            // transitions held, <= capacity
  std::int64_t next_slot() const { return next_slot_; }  // where the next add() goes
  std::int64_t observation_size() const { return observation_size_; }
  std::int64_t action_size() const { return action_size_; }
  core::Dtype observation_dtype() const { return observations_.dtype(); }

  // Copies the transition into next_slot() and returns that slot.
  std::int64_t add(const Transition& transition);

  // Copies the transitions at `slots` (each < size()) into `out` (weights set to 1; uint8
  // observations times the constructor's byte_scale); the batch's vectors are resized to
  // `count` rows. Throws std::out_of_range for another slot.
  void gather(const std::int64_t* slots, std::int64_t count, TransitionBatch& out) const;
  // `batch_size` slots drawn uniformly with replacement from `rng`, gathered into `out`.
  // Throws std::logic_error when empty.
  void sample(core::Rng& rng, std::int64_t batch_size, TransitionBatch& out) const;

  // The whole buffer (contents and position) as the state section "replay buffer": the sizes,
  // the observation dtype (int64: 0 float32, 1 uint8), size and next_slot, then for the `size`
  // stored slots in slot order: observations (their dtype), actions, rewards (float32),
  // next_observations, terminated (uint8, 0 or 1), discounts (float32).
  // load_state() reads it into this buffer, whose sizes must be the saved ones, and throws
  // core::StateError naming the source for other sizes or dtype, a position that cannot occur
  // (next_slot != size while not full), non-finite floats, a flag other than 0/1, a discount
  // outside [0, 1] or a truncated state. After a throw the contents are unspecified.
  void save_state(core::StateWriter& out) const;
  void load_state(core::StateReader& in);

 private:
  // Fills every row of `out` from the slots already in out.indices[0, count).
  void gather_rows(std::int64_t count, TransitionBatch& out) const;

  std::int64_t capacity_, observation_size_, action_size_;
  std::int64_t size_ = 0;
  std::int64_t next_slot_ = 0;
  // [capacity * observation_size], [capacity * action_size], [capacity] ...
  core::TypedRows observations_, next_observations_;
  float byte_scale_;  // for uint8 observations as they are gathered into float batches
  std::vector<float> actions_, rewards_, discounts_;
  std::vector<std::uint8_t> terminated_;
};

}  // namespace mnrl::replay
