// R2D2's sequence replay: an env's steps become overlapping fixed-length sequences with the
// memory before their first step, never crossing an episode's end (the last one padded), and
// they come back laid out [time][sequence], saved and restored exactly.
#include "replay/sequence_replay.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/rng.h"
#include "core/state_fields.h"
#include "core/state_stream.h"

namespace mnrl::replay {
namespace {

SequenceReplayOptions one_env(std::int64_t length, std::int64_t period) {
  SequenceReplayOptions options;
  options.capacity = 16;
  options.observation_size = 1;
  options.state_size = 2;
  options.length = length;
  options.period = period;
  options.per = {0.6, 0.4, 1e-6};
  return options;
}

// Steps one env: observation k before step k, memory {k, -k}, action k % 3, reward k; the
// episode ends after step `last` (terminated or truncated) and the next starts at `last` + 1.
void step(SequenceReplay& replay, int k, int last, bool terminated) {
  const float observation = static_cast<float>(k), next = static_cast<float>(k + 1);
  const float final_observation = 100.0f + static_cast<float>(k);
  const float state[2] = {static_cast<float>(k), -static_cast<float>(k)};
  const float action = static_cast<float>(k % 3), reward = static_cast<float>(k);
  const std::uint8_t ended_terminated = k == last && terminated;
  const std::uint8_t ended_truncated = k == last && !terminated;
  replay.add_step(&observation, state, &action, &reward, &next, &ended_terminated, &ended_truncated,
                  &final_observation);
}

// Every stored sequence, in slot order (equal priorities and one draw per slot: stratified
// sampling gives slot k to segment k).
SequenceBatch all_of(SequenceReplay& replay) {
  core::Rng rng(3);
  SequenceBatch batch;
  replay.sample(rng, replay.size(), 1.0, batch);
  return batch;
}

TEST(SequenceReplayTest, OverlappingSequencesWithTheMemoryBeforeTheirFirstStep) {
  SequenceReplay replay(one_env(4, 2));
  for (int k = 0; k < 10; ++k) step(replay, k, 9, /*terminated=*/true);
  ASSERT_EQ(replay.size(), 4);  // steps 0-3, 2-5, 4-7, 6-9
  const SequenceBatch batch = all_of(replay);
  ASSERT_EQ(batch.indices, (std::vector<std::int64_t>{0, 1, 2, 3}));
  const std::int64_t n = 4;
  for (std::int64_t b = 0; b < n; ++b) {
    const float first = static_cast<float>(2 * b);
    EXPECT_EQ(batch.steps[b], 4);
    EXPECT_EQ(batch.episode_start[b], b == 0);
    EXPECT_EQ(batch.terminated[b], b == 3);
    EXPECT_EQ(batch.states[b * 2], first);  // the memory before its first step
    EXPECT_EQ(batch.states[b * 2 + 1], -first);
    for (std::int64_t t = 0; t < 4; ++t) {
      EXPECT_EQ(batch.observations[t * n + b], first + t);
      EXPECT_EQ(batch.rewards[t * n + b], first + t);
      EXPECT_EQ(batch.actions[t * n + b], static_cast<float>((2 * b + t) % 3));
    }
    // After the last step: the next observation, or the final one where the episode ended.
    EXPECT_EQ(batch.observations[4 * n + b], b == 3 ? 109.0f : first + 4);
  }
}

TEST(SequenceReplayTest, AnEpisodesLastSequenceIsPaddedAndTheNextEpisodeStartsAfresh) {
  SequenceReplay replay(one_env(4, 4));
  for (int k = 0; k < 6; ++k) step(replay, k, 1, /*terminated=*/false);  // truncated after 2
  ASSERT_EQ(replay.size(), 2);  // steps 0-1 (padded), then 2-5 of the next episode
  const SequenceBatch batch = all_of(replay);
  const std::int64_t n = 2;
  EXPECT_EQ(batch.steps, (std::vector<std::int64_t>{2, 4}));
  EXPECT_EQ(batch.terminated, (std::vector<std::uint8_t>{0, 0}));  // truncated: bootstrap
  EXPECT_EQ(batch.episode_start, (std::vector<std::uint8_t>{1, 1}));
  EXPECT_EQ(batch.observations[2 * n + 0], 101.0f);  // the final observation
  for (std::int64_t t = 2; t < 4; ++t) {
    EXPECT_EQ(batch.rewards[t * n + 0], 0.0f);
    EXPECT_EQ(batch.observations[(t + 1) * n + 0], 0.0f);
  }
  EXPECT_EQ(batch.states[2], 2.0f);  // the second episode's first memory, as the actor gave it
}

// Two envs stepped twice with uint8 observations {10 + k, 20 + k}, into `replay`.
void step_bytes(SequenceReplay& replay) {
  for (int k = 0; k < 2; ++k) {
    const std::uint8_t observations[2] = {static_cast<std::uint8_t>(10 + k),
                                          static_cast<std::uint8_t>(20 + k)};
    const std::uint8_t next[2] = {static_cast<std::uint8_t>(11 + k),
                                  static_cast<std::uint8_t>(21 + k)};
    const float states[4] = {0, 0, 0, 0}, actions[2] = {0, 1}, rewards[2] = {1, 2};
    const std::uint8_t no[2] = {0, 0};
    replay.add_step(observations, states, actions, rewards, next, no, no, next);
  }
}

SequenceReplayOptions two_byte_envs() {
  SequenceReplayOptions options = one_env(2, 2);
  options.num_envs = 2;
  options.observation_dtype = core::Dtype::uint8;
  options.byte_scale = 0.5f;
  return options;
}

// uint8 observations stay bytes in the replay (its saved sequences take a quarter of the
// floats' room), are scaled as they are sampled, travel to a learner as their byte values and
// come back exactly from a saved state; a packed element that is no byte is refused, and so is
// a replay of float observations where bytes are expected.
TEST(SequenceReplayTest, UintObservationsStayBytesAndEnvsKeepTheirOwnSequences) {
  SequenceReplay replay(two_byte_envs());
  step_bytes(replay);
  ASSERT_EQ(replay.size(), 2);
  const SequenceBatch batch = all_of(replay);
  EXPECT_EQ(batch.observations, (std::vector<float>{5.0f, 10.0f, 5.5f, 10.5f, 6.0f, 11.0f}));
  EXPECT_EQ(batch.rewards, (std::vector<float>{1, 2, 1, 2}));

  const std::int64_t row = replay.row_floats();
  std::vector<float> packed(static_cast<std::size_t>(row));
  replay.pack(1, 1.0f, packed.data());
  EXPECT_EQ(std::vector<float>(packed.begin(), packed.begin() + 3),
            (std::vector<float>{20.0f, 21.0f, 22.0f}));
  SequenceReplay learner(two_byte_envs());
  learner.add_packed(packed.data());
  SequenceBatch arrived;
  const std::int64_t slot = 0;
  learner.gather(&slot, 1, arrived);
  EXPECT_EQ(arrived.observations, (std::vector<float>{10.0f, 10.5f, 11.0f}));
  for (const float bad : {256.0f, 0.5f, -1.0f}) {
    std::vector<float> damaged = packed;
    damaged[1] = bad;
    EXPECT_THROW(learner.add_packed(damaged.data()), std::invalid_argument) << bad;
  }
  EXPECT_EQ(learner.size(), 1);

  core::StateWriter saved;
  replay.save_sequences(saved);
  SequenceReplay loaded(two_byte_envs());
  core::StateReader in(saved.bytes(), "replay.state");
  loaded.load_sequences(in);
  EXPECT_EQ(all_of(loaded).observations, batch.observations);

  SequenceReplayOptions float_options = two_byte_envs();
  float_options.observation_dtype = core::Dtype::float32;
  SequenceReplay floats(float_options);
  const float observations[2] = {1, 2}, states[4] = {0, 0, 0, 0}, actions[2] = {0, 1};
  const std::uint8_t no[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    floats.add_step(observations, states, actions, actions, observations, no, no, observations);
  }
  core::StateWriter saved_floats;
  floats.save_sequences(saved_floats);
  // 2 sequences of 3 observations: 6 bytes against 24 (and a section name 5 letters longer).
  EXPECT_EQ(saved_floats.bytes().size() - saved.bytes().size(),
            (24u - 6u) - (std::string("byte_sequences").size() - std::string("sequences").size()));
  core::StateReader float_in(saved_floats.bytes(), "replay.state");
  EXPECT_THROW(loaded.load_sequences(float_in), core::StateError);
  EXPECT_THROW(replay.add_step(observations, states, actions, actions, observations, no, no,
                               observations),
               std::logic_error)
      << "float observations where the replay holds bytes";
}

TEST(SequenceReplayTest, PrioritiesSteerSampling) {
  SequenceReplay replay(one_env(2, 2));
  for (int k = 0; k < 8; ++k) step(replay, k, 100, true);
  ASSERT_EQ(replay.size(), 4);
  SequenceBatch batch = all_of(replay);
  std::vector<float> priorities{0.0f, 0.0f, 50.0f, 0.0f};
  replay.update_priorities(batch, priorities.data());
  core::Rng rng(9);
  replay.sample(rng, 64, 0.4, batch);
  const auto drawn = std::count(batch.indices.begin(), batch.indices.end(), 2);
  EXPECT_GT(drawn, 56);
  for (std::int64_t b = 0; b < 64; ++b) {
    EXPECT_LE(batch.weights[b], 1.0f);
    if (batch.indices[b] == 2) {
      EXPECT_LT(batch.weights[b], 0.1f);  // over-drawn, down-weighted
    }
  }
}

TEST(SequenceReplayTest, SavedSequencesAndOpenOnesComeBackExactly) {
  const SequenceReplayOptions options = one_env(4, 2);
  SequenceReplay replay(options);
  for (int k = 0; k < 7; ++k) step(replay, k, 100, true);  // 2 stored, one open of 3 steps
  core::StateWriter sequences, open;
  replay.save_sequences(sequences);
  core::save_fields(open, replay);

  SequenceReplay loaded(options);
  core::StateReader sequences_in(sequences.bytes(), "replay.state");
  loaded.load_sequences(sequences_in);
  core::StateReader open_in(open.bytes(), "agent.state");
  core::load_fields(open_in, loaded);
  for (int k = 7; k < 10; ++k) {  // both go on the same way
    step(replay, k, 100, true);
    step(loaded, k, 100, true);
  }
  ASSERT_EQ(loaded.size(), replay.size());
  const SequenceBatch a = all_of(replay), b = all_of(loaded);
  EXPECT_EQ(a.observations, b.observations);
  EXPECT_EQ(a.states, b.states);
  EXPECT_EQ(a.steps, b.steps);

  // Another sequence length is refused, naming the source.
  SequenceReplay other(one_env(5, 2));
  core::StateReader again(sequences.bytes(), "replay.state");
  try {
    other.load_sequences(again);
    ADD_FAILURE() << "sequences of another length were read";
  } catch (const core::StateError& e) {
    EXPECT_NE(std::string(e.what()).find("replay.state"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("sequence length 4"), std::string::npos) << e.what();
  }
}

// Ape-X: an actor's replay (a small ring used as an outbox) packs its newest sequences into
// rows; a learner's replay stores them as they were, with the priority they came with, and
// refuses a damaged row without storing it.
TEST(SequenceReplayTest, PackedSequencesArriveAsTheyWereStoredWithTheirPriorities) {
  SequenceReplayOptions small = one_env(4, 2);
  small.capacity = 3;
  SequenceReplay actor(small);
  for (int k = 0; k < 10; ++k) step(actor, k, 9, true);                    // 4 sequences
  for (int k = 10; k < 12; ++k) step(actor, k, 11, /*terminated=*/false);  // 1, truncated
  ASSERT_EQ(actor.stored_total(), 5);
  EXPECT_EQ(actor.size(), 3);
  EXPECT_THROW(actor.slot_of(1), std::out_of_range);  // overwritten
  const std::int64_t row = actor.row_floats();
  EXPECT_EQ(row, 5 + 2 * 4 + 2 + 4);
  std::vector<float> rows(static_cast<std::size_t>(3 * row));
  for (std::int64_t k = 0; k < 3; ++k) {
    actor.pack(actor.slot_of(2 + k), 0.5f + static_cast<float>(k), &rows[k * row]);
  }

  SequenceReplay learner(one_env(4, 2));
  for (std::int64_t k = 0; k < 3; ++k) learner.add_packed(&rows[k * row]);
  ASSERT_EQ(learner.size(), 3);
  SequenceBatch batch;
  const std::int64_t slots[3] = {0, 1, 2};
  learner.gather(slots, 3, batch);
  EXPECT_EQ(batch.weights, (std::vector<float>{1.0f, 1.0f, 1.0f}));
  const std::int64_t n = 3;
  EXPECT_EQ(batch.steps, (std::vector<std::int64_t>{4, 4, 2}));  // steps 4-7, 6-9, 10-11
  EXPECT_EQ(batch.terminated, (std::vector<std::uint8_t>{0, 1, 0}));
  EXPECT_EQ(batch.episode_start, (std::vector<std::uint8_t>{0, 0, 1}));
  EXPECT_EQ(batch.observations[0 * n + 1], 6.0f);
  EXPECT_EQ(batch.observations[4 * n + 1], 109.0f);  // the final observation
  EXPECT_EQ(batch.states[2 * 2], 10.0f);
  EXPECT_EQ(batch.actions[1 * n + 0], 2.0f);  // step 5
  EXPECT_EQ(batch.rewards[3 * n + 1], 9.0f);
  // The priorities came along: the last row (2.5) is drawn most.
  core::Rng rng(5);
  SequenceBatch drawn;
  learner.sample(rng, 300, 0.4, drawn);
  const auto counts = [&](std::int64_t slot) {
    return std::count(drawn.indices.begin(), drawn.indices.end(), slot);
  };
  EXPECT_GT(counts(2), counts(1));
  EXPECT_GT(counts(1), counts(0));

  std::vector<float> damaged(rows.begin(), rows.begin() + row);
  damaged[static_cast<std::size_t>(row - 4)] = 5.0f;  // 5 steps in a sequence of 4
  EXPECT_THROW(learner.add_packed(damaged.data()), std::invalid_argument);
  damaged[static_cast<std::size_t>(row - 4)] = 4.0f;
  damaged[static_cast<std::size_t>(row - 1)] = std::nanf("");  // the priority
  EXPECT_THROW(learner.add_packed(damaged.data()), std::invalid_argument);
  EXPECT_EQ(learner.size(), 3);
  EXPECT_EQ(learner.stored_total(), 3);
}

}  // namespace
}  // namespace mnrl::replay
