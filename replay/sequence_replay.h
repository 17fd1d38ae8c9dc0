#pragma once

#include <cstdint>
#include <vector>

#include "core/state_fields.h"
#include "core/typed_ptr.h"
#include "core/typed_rows.h"
#include "replay/priorities.h"

namespace mnrl::core {
class Rng;
class StateReader;
class StateWriter;
}  // namespace mnrl::core

namespace mnrl::replay {

struct SequenceReplayOptions {
  std::int64_t capacity = 1;          // sequences held
  std::int64_t observation_size = 1;  // elements per observation
  std::int64_t state_size = 1;        // floats of the memory a sequence starts from
  std::int64_t num_envs = 1;          // envs whose steps come in together
  std::int64_t length = 1;            // steps per sequence
  std::int64_t period = 1;            // steps between the starts of an episode's sequences
  PrioritizedReplayOptions per;
  // The observations' dtype, as stored: uint8 ones stay bytes (a quarter of the memory) and
  // become floats times byte_scale as sequences are sampled.
  core::Dtype observation_dtype = core::Dtype::float32;
  float byte_scale = 1.0f;
};

// Sampled sequences laid out [time][sequence], as a recurrent network replays them; reused
// between draws.
struct SequenceBatch {
  std::int64_t size = 0;
  // [length + 1][size][observation_size]: the observation before each step, then the one
  // after the last (the final observation where the episode ended); zero past the end.
  std::vector<float> observations;
  std::vector<float> actions;               // [length][size] (Discrete indices as floats)
  std::vector<float> rewards;               // [length][size], zero past the end
  std::vector<float> states;                // [size][state_size]: the memory before step 0
  std::vector<std::int64_t> steps;          // [size] steps that happened (the rest is padding)
  std::vector<std::uint8_t> terminated;     // [size] the episode terminated at the last step
  std::vector<std::uint8_t> episode_start;  // [size] step 0 begins an episode (zero memory)
  std::vector<std::int64_t> indices;        // [size] slots, for priority updates
  std::vector<float> weights;               // [size] importance weights
};

// R2D2's replay (Kapturowski et al. 2019): fixed-length sequences of each env's steps with the
// memory the actor had before their first step, in proportional prioritized replay. An env's
// sequences start every `period` steps within an episode (so successive ones overlap by
// length - period steps) and never cross an episode's end: the last one of an episode is
// padded. Each env's sequence in progress is part of the agent's state (save_fields).
class SequenceReplay {
 public:
  // Throws std::invalid_argument for sizes < 1, a period outside [1, length] or invalid
  // prioritized-replay options.
  explicit SequenceReplay(const SequenceReplayOptions& options);

  const SequenceReplayOptions& options() const { return options_; }
  std::int64_t size() const { return size_; }

  // One vector-env step, [env][...]: the observations and the memories (`states`) the actions
  // were chosen from, the actions, and the step's outcome. A sequence is stored when an env's
  // reaches `length` steps or its episode ends.
  void add_step(core::ConstTypedPtr observations, const float* states, const float* actions,
                const float* rewards, core::ConstTypedPtr next_observations,
                const std::uint8_t* terminated, const std::uint8_t* truncated,
                core::ConstTypedPtr final_observations);
  // `batch_size` sequences drawn by priority into `out`, with importance weights at `beta`.
  // Throws std::logic_error when empty.
  void sample(core::Rng& rng, std::int64_t batch_size, double beta, SequenceBatch& out);
  // The sequences in `slots` (each < size()) into `out`, with importance weights 1.
  void gather(const std::int64_t* slots, std::int64_t count, SequenceBatch& out) const;
  // Each sampled sequence's new priority (R2D2's mix of its largest and mean |TD error|).
  void update_priorities(const SequenceBatch& batch, const float* priorities);

  // Ape-X's actors and learner: sequences as rows of floats, each the observations, actions,
  // rewards, the memory before step 0, the step count, terminated, episode_start and a
  // priority. Observations travel as their stored elements (uint8 ones as 0-255, unscaled).
  std::int64_t row_floats() const;
  // Sequences stored since this replay was made; the `ordinal`th of them (counting from 0)
  // lies in slot_of(ordinal) while it is among the last size() stored.
  std::int64_t stored_total() const { return stored_total_; }
  std::int64_t slot_of(std::int64_t ordinal) const;
  // Slot `slot`'s sequence as a row, with `priority`, into `out` (row_floats() floats).
  void pack(std::int64_t slot, float priority, float* out) const;
  // Stores the sequence of a row pack() wrote, with its priority. Throws std::invalid_argument,
  // storing nothing, for a malformed row (a step count outside [1, length], flags that are not
  // 0 or 1, a priority that is not finite and >= 0, a uint8 observation element that is not
  // an integer in [0, 255]).
  void add_packed(const float* row);

  // The stored sequences and their priorities. load_sequences() throws core::StateError naming
  // the source for a state of other sizes or dtype or a malformed one; the contents are then
  // unspecified. (uint8 sequences have their own section name: those saved before they were
  // stored as bytes, as floats, are refused by it.)
  void save_sequences(core::StateWriter& out) const;
  void load_sequences(core::StateReader& in);

 private:
  // Stores env `env`'s sequence in progress, `steps` long, followed by `after` (its next
  // observation), and moves it on: emptied after an episode's end, else shifted by `period`.
  void store(std::int64_t env, std::int64_t steps, core::ConstTypedPtr after, bool terminated,
             bool episode_ended);
  // Takes a slot for a new sequence (the oldest one's once full) and returns it.
  std::int64_t claim_slot();
  // out.indices' sequences into `out` (all but the indices and weights).
  void copy_indexed(SequenceBatch& out) const;
  bool bytes() const { return options_.observation_dtype == core::Dtype::uint8; }

  SequenceReplayOptions options_;
  std::int64_t size_ = 0, next_slot_ = 0;
  std::int64_t stored_total_ = 0;  // sequences stored since construction (not in the state)
  // Stored sequences, slot-major: rows [capacity][length + 1] of observations, [capacity][length]
  // ..., [capacity][state_size], [capacity].
  core::TypedRows observations_;
  std::vector<float> actions_, rewards_, states_;
  std::vector<std::int64_t> steps_;
  std::vector<std::uint8_t> terminated_, episode_start_;
  Priorities priorities_;
  // Each env's sequence in progress: [env][length][...] and its step count; whether its first
  // step began the episode.
  core::TypedRows open_observations_;
  std::vector<float> open_actions_, open_rewards_, open_states_;
  std::vector<std::int64_t> open_steps_;
  std::vector<std::uint8_t> open_episode_start_;

  friend struct core::StateFieldsAccess;
  template <class Fields>
  void state_fields(Fields& fields) {
    // uint8 observations have their own section (see load_sequences()).
    fields.tag(bytes() ? "open_byte_sequences" : "open_sequences");
    fields(open_observations_.first_rows(
               static_cast<std::size_t>(options_.num_envs * options_.length)),
           open_actions_, open_rewards_, open_states_, open_steps_, open_episode_start_);
  }
};

}  // namespace mnrl::replay
