#include "replay/sequence_replay.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "core/state_stream.h"

namespace mnrl::replay {
namespace {

// The stored sequences' section in a state stream: uint8 observations have their own (before
// they were stored as bytes they were saved as floats under the first name).
constexpr const char* kTag = "sequences";
constexpr const char* kByteTag = "byte_sequences";

const SequenceReplayOptions& checked(const SequenceReplayOptions& o) {
  if (o.capacity < 1 || o.observation_size < 1 || o.state_size < 1 || o.num_envs < 1 ||
      o.length < 1 || o.period < 1 || o.period > o.length) {
    throw std::invalid_argument(
        "SequenceReplay: sizes must be >= 1 and the period within [1, length]");
  }
  return o;
}

// Sets `count` elements of `rows` from element `first` on to zero.
void zero_elements(core::TypedRows& rows, std::size_t first, std::size_t count) {
  const core::TypedPtr at = rows.data() + first;
  if (rows.dtype() == core::Dtype::uint8) {
    std::fill_n(at.bytes(), count, std::uint8_t{0});
  } else {
    std::fill_n(at.floats(), count, 0.0f);
  }
}

// Moves `count` elements of `rows` from element `from` to element `to` (the ranges may overlap).
void move_elements(core::TypedRows& rows, std::size_t from, std::size_t to, std::size_t count) {
  const core::TypedPtr base = rows.data();
  if (rows.dtype() == core::Dtype::uint8) {
    std::memmove(base.bytes() + to, base.bytes() + from, count);
  } else {
    std::memmove(base.floats() + to, base.floats() + from, count * sizeof(float));
  }
}

}  // namespace

SequenceReplay::SequenceReplay(const SequenceReplayOptions& options)
    : options_(checked(options)), priorities_(options.capacity, options.per, "SequenceReplay") {
  const std::int64_t capacity = options.capacity, length = options.length;
  const std::int64_t observation = options.observation_size, envs = options.num_envs;
  observations_ = core::TypedRows(options.observation_dtype,
                                  static_cast<std::size_t>(capacity * (length + 1)),
                                  static_cast<std::size_t>(observation));
  actions_.resize(static_cast<std::size_t>(capacity * length));
  rewards_.resize(static_cast<std::size_t>(capacity * length));
  states_.resize(static_cast<std::size_t>(capacity * options.state_size));
  steps_.resize(static_cast<std::size_t>(capacity));
  terminated_.resize(static_cast<std::size_t>(capacity));
  episode_start_.resize(static_cast<std::size_t>(capacity));
  open_observations_ = core::TypedRows(options.observation_dtype,
                                       static_cast<std::size_t>(envs * length),
                                       static_cast<std::size_t>(observation));
  open_actions_.resize(static_cast<std::size_t>(envs * length));
  open_rewards_.resize(static_cast<std::size_t>(envs * length));
  open_states_.resize(static_cast<std::size_t>(envs * length * options.state_size));
  open_steps_.assign(static_cast<std::size_t>(envs), 0);
  open_episode_start_.assign(static_cast<std::size_t>(envs), 1);  // training starts episodes
}

void SequenceReplay::add_step(core::ConstTypedPtr observations, const float* states,
                              const float* actions, const float* rewards,
                              core::ConstTypedPtr next_observations, const std::uint8_t* terminated,
                              const std::uint8_t* truncated,
                              core::ConstTypedPtr final_observations) {
  if (observations.dtype() != options_.observation_dtype ||
      next_observations.dtype() != options_.observation_dtype) {
    throw std::logic_error("SequenceReplay: observations of another dtype than the replay's");
  }
  const std::int64_t length = options_.length, size = options_.observation_size;
  const std::int64_t state = options_.state_size;
  for (std::int64_t env = 0; env < options_.num_envs; ++env) {
    const auto e = static_cast<std::size_t>(env);
    const std::int64_t t = open_steps_[e];
    open_observations_.copy_row(static_cast<std::size_t>(env * length + t),
                                observations + static_cast<std::size_t>(env * size));
    std::copy_n(states + env * state, state,
                &open_states_[static_cast<std::size_t>((env * length + t) * state)]);
    open_actions_[static_cast<std::size_t>(env * length + t)] = actions[env];
    open_rewards_[static_cast<std::size_t>(env * length + t)] = rewards[env];
    open_steps_[e] = t + 1;
    const bool ended = terminated[env] || truncated[env];
    if (!ended && t + 1 < length) continue;
    store(env, t + 1,
          (ended ? final_observations : next_observations) + static_cast<std::size_t>(env * size),
          terminated[env] != 0, ended);
  }
}

std::int64_t SequenceReplay::claim_slot() {
  const std::int64_t slot = next_slot_;
  next_slot_ = (next_slot_ + 1) % options_.capacity;
  size_ = std::min(size_ + 1, options_.capacity);
  ++stored_total_;
  return slot;
}

void SequenceReplay::store(std::int64_t env, std::int64_t steps, core::ConstTypedPtr after,
                           bool terminated, bool episode_ended) {
  const std::int64_t length = options_.length, size = options_.observation_size;
  const std::int64_t state = options_.state_size;
  const auto e = static_cast<std::size_t>(env);
  const std::int64_t slot = claim_slot();
  const auto first_row = static_cast<std::size_t>(slot * (length + 1));
  core::copy_elements(open_observations_.row(static_cast<std::size_t>(env * length)),
                      static_cast<std::size_t>(steps * size), observations_.row(first_row));
  observations_.copy_row(first_row + static_cast<std::size_t>(steps), after);
  zero_elements(observations_,
                (first_row + static_cast<std::size_t>(steps + 1)) * static_cast<std::size_t>(size),
                static_cast<std::size_t>((length - steps) * size));
  float* actions = &actions_[static_cast<std::size_t>(slot * length)];
  float* rewards = &rewards_[static_cast<std::size_t>(slot * length)];
  std::copy_n(&open_actions_[static_cast<std::size_t>(env * length)], steps, actions);
  std::copy_n(&open_rewards_[static_cast<std::size_t>(env * length)], steps, rewards);
  std::fill(actions + steps, actions + length, 0.0f);
  std::fill(rewards + steps, rewards + length, 0.0f);
  std::copy_n(&open_states_[static_cast<std::size_t>(env * length * state)], state,
              &states_[static_cast<std::size_t>(slot * state)]);
  const auto s = static_cast<std::size_t>(slot);
  steps_[s] = steps;
  terminated_[s] = terminated;
  episode_start_[s] = open_episode_start_[e];
  priorities_.add(slot);

  if (episode_ended) {
    open_steps_[e] = 0;
    open_episode_start_[e] = 1;
    return;
  }
  // The next sequence starts `period` steps after this one: keep the steps it shares.
  const std::int64_t kept = steps - options_.period;
  const auto shift = [&](std::vector<float>& rows, std::int64_t width) {
    float* first = &rows[static_cast<std::size_t>(env * length * width)];
    std::copy_n(first + options_.period * width, kept * width, first);
  };
  const auto env_first = static_cast<std::size_t>(env * length * size);
  move_elements(open_observations_, env_first + static_cast<std::size_t>(options_.period * size),
                env_first, static_cast<std::size_t>(kept * size));
  shift(open_actions_, 1);
  shift(open_rewards_, 1);
  shift(open_states_, state);
  open_steps_[e] = kept;
  open_episode_start_[e] = 0;
}

void SequenceReplay::sample(core::Rng& rng, std::int64_t batch_size, double beta,
                            SequenceBatch& out) {
  if (size_ == 0) throw std::logic_error("SequenceReplay::sample: the buffer is empty");
  out.size = batch_size;
  out.indices.resize(static_cast<std::size_t>(batch_size));
  out.weights.resize(static_cast<std::size_t>(batch_size));
  priorities_.sample(rng, batch_size, beta, out.indices.data(), out.weights.data());
  copy_indexed(out);
}

void SequenceReplay::gather(const std::int64_t* slots, std::int64_t count,
                            SequenceBatch& out) const {
  out.size = count;
  out.indices.assign(slots, slots + count);
  out.weights.assign(static_cast<std::size_t>(count), 1.0f);
  copy_indexed(out);
}

void SequenceReplay::copy_indexed(SequenceBatch& out) const {
  const std::int64_t length = options_.length, size = options_.observation_size;
  const std::int64_t state = options_.state_size, n = out.size;
  out.observations.resize(static_cast<std::size_t>((length + 1) * n * size));
  out.actions.resize(static_cast<std::size_t>(length * n));
  out.rewards.resize(static_cast<std::size_t>(length * n));
  out.states.resize(static_cast<std::size_t>(n * state));
  out.steps.resize(static_cast<std::size_t>(n));
  out.terminated.resize(static_cast<std::size_t>(n));
  out.episode_start.resize(static_cast<std::size_t>(n));
  for (std::int64_t b = 0; b < n; ++b) {
    const std::int64_t slot = out.indices[static_cast<std::size_t>(b)];
    for (std::int64_t t = 0; t <= length; ++t) {
      observations_.row_as_floats(static_cast<std::size_t>(slot * (length + 1) + t),
                                  &out.observations[static_cast<std::size_t>((t * n + b) * size)],
                                  options_.byte_scale);
    }
    for (std::int64_t t = 0; t < length; ++t) {
      out.actions[static_cast<std::size_t>(t * n + b)] =
          actions_[static_cast<std::size_t>(slot * length + t)];
      out.rewards[static_cast<std::size_t>(t * n + b)] =
          rewards_[static_cast<std::size_t>(slot * length + t)];
    }
    std::copy_n(&states_[static_cast<std::size_t>(slot * state)], state,
                &out.states[static_cast<std::size_t>(b * state)]);
    const auto s = static_cast<std::size_t>(slot);
    out.steps[static_cast<std::size_t>(b)] = steps_[s];
    out.terminated[static_cast<std::size_t>(b)] = terminated_[s];
    out.episode_start[static_cast<std::size_t>(b)] = episode_start_[s];
  }
}

void SequenceReplay::update_priorities(const SequenceBatch& batch, const float* priorities) {
  priorities_.update(batch.indices.data(), priorities, batch.size, size_);
}

std::int64_t SequenceReplay::row_floats() const {
  const SequenceReplayOptions& o = options_;
  return (o.length + 1) * o.observation_size + 2 * o.length + o.state_size + 4;
}

std::int64_t SequenceReplay::slot_of(std::int64_t ordinal) const {
  const std::int64_t back = stored_total_ - ordinal;  // 1 for the newest
  if (back < 1 || back > size_) throw std::out_of_range("SequenceReplay::slot_of: not stored");
  return ((next_slot_ - back) % options_.capacity + options_.capacity) % options_.capacity;
}

void SequenceReplay::pack(std::int64_t slot, float priority, float* out) const {
  const SequenceReplayOptions& o = options_;
  const std::int64_t observations = (o.length + 1) * o.observation_size;
  const core::ConstTypedPtr stored =
      observations_.row(static_cast<std::size_t>(slot * (o.length + 1)));
  if (bytes()) {
    out = std::copy_n(stored.bytes(), observations, out);  // 0-255 as floats
  } else {
    out = std::copy_n(stored.floats(), observations, out);
  }
  out = std::copy_n(&actions_[static_cast<std::size_t>(slot * o.length)], o.length, out);
  out = std::copy_n(&rewards_[static_cast<std::size_t>(slot * o.length)], o.length, out);
  out = std::copy_n(&states_[static_cast<std::size_t>(slot * o.state_size)], o.state_size, out);
  const auto s = static_cast<std::size_t>(slot);
  *out++ = static_cast<float>(steps_[s]);
  *out++ = terminated_[s];
  *out++ = episode_start_[s];
  *out = priority;
}

void SequenceReplay::add_packed(const float* row) {
  const SequenceReplayOptions& o = options_;
  const std::int64_t observations = (o.length + 1) * o.observation_size;
  const float* tail = row + observations + 2 * o.length + o.state_size;
  const float steps = tail[0], terminated = tail[1], episode_start = tail[2], priority = tail[3];
  const auto is_flag = [](float value) { return value == 0.0f || value == 1.0f; };
  if (!(steps >= 1.0f && steps <= static_cast<float>(o.length)) || steps != std::floor(steps) ||
      !is_flag(terminated) || !is_flag(episode_start) || !std::isfinite(priority) ||
      priority < 0.0f) {
    throw std::invalid_argument(
        "a sequence of " + std::to_string(steps) + " steps (length " + std::to_string(o.length) +
        "), terminated " + std::to_string(terminated) + ", episode start " +
        std::to_string(episode_start) + ", priority " + std::to_string(priority));
  }
  if (bytes()) {
    for (std::int64_t i = 0; i < observations; ++i) {
      if (!(row[i] >= 0.0f && row[i] <= 255.0f) || row[i] != std::floor(row[i])) {
        throw std::invalid_argument("a sequence with observation element " +
                                    std::to_string(row[i]) + " (uint8 observations)");
      }
    }
  }
  const std::int64_t slot = claim_slot();
  const core::TypedPtr stored = observations_.row(static_cast<std::size_t>(slot * (o.length + 1)));
  if (bytes()) {
    for (std::int64_t i = 0; i < observations; ++i) {
      stored.bytes()[i] = static_cast<std::uint8_t>(row[i]);
    }
  } else {
    std::copy_n(row, observations, stored.floats());
  }
  row += observations;
  std::copy_n(row, o.length, &actions_[static_cast<std::size_t>(slot * o.length)]);
  row += o.length;
  std::copy_n(row, o.length, &rewards_[static_cast<std::size_t>(slot * o.length)]);
  row += o.length;
  std::copy_n(row, o.state_size, &states_[static_cast<std::size_t>(slot * o.state_size)]);
  const auto s = static_cast<std::size_t>(slot);
  steps_[s] = static_cast<std::int64_t>(steps);
  terminated_[s] = static_cast<std::uint8_t>(terminated);
  episode_start_[s] = static_cast<std::uint8_t>(episode_start);
  priorities_.add(slot);
  priorities_.update(&slot, &priority, 1, size_);
}

void SequenceReplay::save_sequences(core::StateWriter& out) const {
  out.tag(bytes() ? kByteTag : kTag);
  const SequenceReplayOptions& o = options_;
  for (const std::int64_t value : {o.capacity, o.observation_size, o.state_size, o.length}) {
    out.value(value);
  }
  out.value(size_);
  out.value(next_slot_);
  const auto stored = static_cast<std::size_t>(size_);
  observations_.save_rows(out, stored * static_cast<std::size_t>(o.length + 1));
  out.values(actions_.data(), stored * static_cast<std::size_t>(o.length));
  out.values(rewards_.data(), stored * static_cast<std::size_t>(o.length));
  out.values(states_.data(), stored * static_cast<std::size_t>(o.state_size));
  out.values(steps_.data(), stored);
  out.values(terminated_.data(), stored);
  out.values(episode_start_.data(), stored);
  priorities_.save_state(out, size_);
}

void SequenceReplay::load_sequences(core::StateReader& in) {
  in.expect_tag(bytes() ? kByteTag : kTag);
  const SequenceReplayOptions& o = options_;
  const char* names[] = {"capacity", "observation size", "state size", "sequence length"};
  int k = 0;
  for (const std::int64_t value : {o.capacity, o.observation_size, o.state_size, o.length}) {
    const auto saved = in.value<std::int64_t>();
    if (saved != value) {
      in.fail(std::string("sequence replay of ") + names[k] + " " + std::to_string(saved) +
              ", this run's is " + std::to_string(value));
    }
    ++k;
  }
  const auto size = in.value<std::int64_t>();
  const auto next_slot = in.value<std::int64_t>();
  if (size < 0 || size > o.capacity || next_slot < 0 || next_slot >= o.capacity ||
      (size < o.capacity && next_slot != size)) {
    in.fail("sequence replay position " + std::to_string(size) + " / " + std::to_string(next_slot) +
            " cannot occur");
  }
  const auto stored = static_cast<std::size_t>(size);
  observations_.load_rows(in, stored * static_cast<std::size_t>(o.length + 1));
  in.values(actions_.data(), stored * static_cast<std::size_t>(o.length));
  in.values(rewards_.data(), stored * static_cast<std::size_t>(o.length));
  in.values(states_.data(), stored * static_cast<std::size_t>(o.state_size));
  in.values(steps_.data(), stored);
  in.values(terminated_.data(), stored);
  in.values(episode_start_.data(), stored);
  for (std::size_t s = 0; s < stored; ++s) {
    if (steps_[s] < 1 || steps_[s] > o.length || terminated_[s] > 1 || episode_start_[s] > 1) {
      in.fail("sequence " + std::to_string(s) + " is malformed");
    }
  }
  size_ = size;
  next_slot_ = next_slot;
  priorities_.load_state(in, size_);
}

}  // namespace mnrl::replay
