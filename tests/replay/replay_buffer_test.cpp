#include "replay/replay_buffer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/rng.h"
#include "core/state_stream.h"

namespace mnrl::replay {
namespace {

// Transition number i with two-value observations and a one-value action, every field
// derived from i so a row tells which transition it came from.
struct NumberedTransition {
  explicit NumberedTransition(int i)
      : observation{static_cast<float>(i), i + 0.5f},
        action{10.0f * i},
        next_observation{i + 1.0f, i + 1.5f} {
    transition.observation = observation.data();
    transition.action = action.data();
    transition.reward = -1.0f * i;
    transition.next_observation = next_observation.data();
    transition.terminated = i % 2 == 1;
    transition.discount = 1.0f / static_cast<float>(i + 1);
  }
  NumberedTransition(const NumberedTransition&) = delete;  // `transition` points into this
  NumberedTransition& operator=(const NumberedTransition&) = delete;

  std::vector<float> observation, action, next_observation;
  Transition transition;
};

void add_numbered(ReplayBuffer& buffer, int i) { buffer.add(NumberedTransition(i).transition); }

// Checks row `row` of `batch` holds transition number i.
void expect_row_is(const TransitionBatch& batch, std::size_t row, int i) {
  const NumberedTransition t(i);
  SCOPED_TRACE("row " + std::to_string(row) + ", transition " + std::to_string(i));
  EXPECT_EQ(batch.observations[2 * row], t.observation[0]);
  EXPECT_EQ(batch.observations[2 * row + 1], t.observation[1]);
  EXPECT_EQ(batch.actions[row], t.action[0]);
  EXPECT_EQ(batch.rewards[row], t.transition.reward);
  EXPECT_EQ(batch.next_observations[2 * row], t.next_observation[0]);
  EXPECT_EQ(batch.next_observations[2 * row + 1], t.next_observation[1]);
  EXPECT_EQ(batch.terminated[row], t.transition.terminated ? 1 : 0);
  EXPECT_EQ(batch.discounts[row], t.transition.discount);
  EXPECT_EQ(batch.weights[row], 1.0f);
}

// The buffer's state stream.
std::string saved(const ReplayBuffer& buffer) {
  core::StateWriter out;
  buffer.save_state(out);
  return out.bytes();
}

constexpr const char* kSource = "replay.bin";  // what the reader calls the bytes

ReplayBuffer loaded_from(const std::string& bytes, std::int64_t capacity,
                         std::int64_t observation_size, std::int64_t action_size) {
  ReplayBuffer buffer(capacity, observation_size, action_size);
  core::StateReader in(bytes, kSource);
  buffer.load_state(in);
  in.expect_end();
  return buffer;
}

// The message loading `bytes` throws, or "(no error)".
std::string load_error(const std::string& bytes, std::int64_t capacity = 3,
                       std::int64_t observation_size = 2, std::int64_t action_size = 1) {
  try {
    loaded_from(bytes, capacity, observation_size, action_size);
  } catch (const core::StateError& e) {
    return e.what();
  }
  return "(no error)";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ReplayBufferTest, RejectsNonPositiveSizes) {
  EXPECT_THROW(ReplayBuffer(0, 2, 1), std::invalid_argument);
  EXPECT_THROW(ReplayBuffer(3, 0, 1), std::invalid_argument);
  EXPECT_THROW(ReplayBuffer(3, 2, -1), std::invalid_argument);
  const ReplayBuffer buffer(3, 2, 1);
  EXPECT_EQ(buffer.capacity(), 3);
  EXPECT_EQ(buffer.observation_size(), 2);
  EXPECT_EQ(buffer.action_size(), 1);
  EXPECT_EQ(buffer.size(), 0);
  EXPECT_EQ(buffer.next_slot(), 0);
}

TEST(ReplayBufferTest, WrapsAroundOverwritingTheOldest) {
  ReplayBuffer buffer(3, 2, 1);
  const std::vector<std::int64_t> slots{0, 1, 2, 0, 1};
  const std::vector<std::int64_t> sizes{1, 2, 3, 3, 3};
  const std::vector<std::int64_t> next_slots{1, 2, 0, 1, 2};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(buffer.add(NumberedTransition(i).transition), slots[i]) << "add " << i;
    EXPECT_EQ(buffer.size(), sizes[i]) << "add " << i;
    EXPECT_EQ(buffer.next_slot(), next_slots[i]) << "add " << i;
  }
  // Transitions 3 and 4 replaced 0 and 1; 2 is now the oldest.
  const std::vector<std::int64_t> all{0, 1, 2};
  TransitionBatch batch;
  buffer.gather(all.data(), 3, batch);
  expect_row_is(batch, 0, 3);
  expect_row_is(batch, 1, 4);
  expect_row_is(batch, 2, 2);
}

TEST(ReplayBufferTest, GatherCopiesRowsInOrderAndReusesTheBatch) {
  ReplayBuffer buffer(4, 2, 1);
  for (int i = 0; i < 3; ++i) add_numbered(buffer, i);
  TransitionBatch batch;
  const std::vector<std::int64_t> slots{2, 0, 2, 1};
  buffer.gather(slots.data(), 4, batch);
  EXPECT_EQ(batch.indices, slots);
  ASSERT_EQ(batch.observations.size(), 8u);
  ASSERT_EQ(batch.actions.size(), 4u);
  ASSERT_EQ(batch.weights.size(), 4u);
  for (std::size_t row = 0; row < slots.size(); ++row) {
    expect_row_is(batch, row, static_cast<int>(slots[row]));
  }

  // A smaller batch has exactly its rows; growing back reuses the same memory.
  const float* observations = batch.observations.data();
  const std::int64_t* indices = batch.indices.data();
  buffer.gather(&slots[3], 1, batch);
  EXPECT_EQ(batch.indices, std::vector<std::int64_t>{1});
  EXPECT_EQ(batch.rewards.size(), 1u);
  expect_row_is(batch, 0, 1);
  buffer.gather(slots.data(), 4, batch);
  EXPECT_EQ(batch.observations.data(), observations);
  EXPECT_EQ(batch.indices.data(), indices);

  // Slots may come from the batch's own indices (as a prioritized buffer might pass them).
  const std::vector<std::int64_t> before = batch.indices;
  buffer.gather(batch.indices.data(), 4, batch);
  EXPECT_EQ(batch.indices, before);

  const std::int64_t unfilled = 3;
  EXPECT_THROW(buffer.gather(&unfilled, 1, batch), std::out_of_range);
}

TEST(ReplayBufferTest, SampleThrowsWhenEmpty) {
  const ReplayBuffer buffer(3, 2, 1);
  core::Rng rng(1);
  TransitionBatch batch;
  EXPECT_THROW(buffer.sample(rng, 4, batch), std::logic_error);
}

TEST(ReplayBufferTest, SampleDrawsSlotsWithRngBelowSize) {
  ReplayBuffer buffer(8, 2, 1);
  for (int i = 0; i < 5; ++i) add_numbered(buffer, i);  // size 5 of capacity 8
  core::Rng rng(42);
  core::Rng reference(42);
  TransitionBatch batch;
  for (int draw = 0; draw < 3; ++draw) {
    buffer.sample(rng, 16, batch);
    ASSERT_EQ(batch.indices.size(), 16u);
    for (std::size_t row = 0; row < 16; ++row) {
      EXPECT_EQ(batch.indices[row], static_cast<std::int64_t>(reference.below(5)));
      expect_row_is(batch, row, static_cast<int>(batch.indices[row]));
    }
  }
}

TEST(ReplayBufferTest, SamplesSlotsUniformly) {
  constexpr int kSlots = 10;
  constexpr int kBatches = 200;
  constexpr int kBatchSize = 500;  // 100000 draws, 10000 expected per slot
  ReplayBuffer buffer(16, 2, 1);
  for (int i = 0; i < kSlots; ++i) add_numbered(buffer, i);
  core::Rng rng(2024);
  TransitionBatch batch;
  std::vector<double> counts(kSlots, 0.0);
  for (int b = 0; b < kBatches; ++b) {
    buffer.sample(rng, kBatchSize, batch);
    for (const std::int64_t slot : batch.indices) {
      ASSERT_GE(slot, 0);
      ASSERT_LT(slot, kSlots);
      counts[static_cast<std::size_t>(slot)] += 1.0;
    }
  }
  const double expected = static_cast<double>(kBatches) * kBatchSize / kSlots;
  double chi_square = 0.0;
  for (int slot = 0; slot < kSlots; ++slot) {
    const double count = counts[static_cast<std::size_t>(slot)];
    EXPECT_NEAR(count, expected, 0.05 * expected) << "slot " << slot;
    chi_square += (count - expected) * (count - expected) / expected;
  }
  // 9 degrees of freedom: P(chi^2 > 27.88) = 0.001 for a uniform sampler.
  EXPECT_LT(chi_square, 27.88);
}

// Every float of the buffer as raw bits, slot by slot, plus the terminated flags.
std::string raw_contents(const ReplayBuffer& buffer) {
  std::vector<std::int64_t> slots;
  for (std::int64_t s = 0; s < buffer.size(); ++s) slots.push_back(s);
  TransitionBatch batch;
  buffer.gather(slots.data(), buffer.size(), batch);
  std::string bytes;
  const auto append = [&bytes](const auto& v) {
    bytes.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(v[0]));
  };
  append(batch.observations);
  append(batch.actions);
  append(batch.rewards);
  append(batch.next_observations);
  append(batch.terminated);
  append(batch.discounts);
  return bytes;
}

TEST(ReplayBufferTest, SaveLoadRoundTripIsBitExactIncludingPosition) {
  ReplayBuffer buffer(5, 2, 1);
  for (int i = 0; i < 7; ++i) add_numbered(buffer, i);  // wrapped: next_slot 2
  // Values a text format would not keep bit for bit.
  const std::vector<float> odd_observation{-0.0f, std::numeric_limits<float>::denorm_min()};
  const std::vector<float> odd_action{1.0f / 3.0f};
  const NumberedTransition seventh(7);
  Transition odd = seventh.transition;
  odd.observation = odd_observation.data();
  odd.action = odd_action.data();
  odd.reward = std::nextafter(1.0f, 2.0f);
  buffer.add(odd);
  ASSERT_EQ(buffer.next_slot(), 3);

  const std::string bytes = saved(buffer);
  ReplayBuffer loaded = loaded_from(bytes, 5, 2, 1);
  EXPECT_EQ(loaded.size(), 5);
  EXPECT_EQ(loaded.next_slot(), 3);
  EXPECT_EQ(raw_contents(loaded), raw_contents(buffer));

  // Saving the loaded buffer gives the same bytes, and both buffers go on alike.
  EXPECT_EQ(saved(loaded), bytes);
  EXPECT_EQ(loaded.add(NumberedTransition(8).transition),
            buffer.add(NumberedTransition(8).transition));
  EXPECT_EQ(raw_contents(loaded), raw_contents(buffer));
}

TEST(ReplayBufferTest, SaveLoadRoundTripOfPartlyFilledAndEmptyBuffers) {
  ReplayBuffer buffer(6, 2, 1);
  EXPECT_EQ(loaded_from(saved(buffer), 6, 2, 1).size(), 0);
  for (int i = 0; i < 2; ++i) add_numbered(buffer, i);
  const ReplayBuffer loaded = loaded_from(saved(buffer), 6, 2, 1);
  EXPECT_EQ(loaded.size(), 2);
  EXPECT_EQ(loaded.next_slot(), 2);
  EXPECT_EQ(raw_contents(loaded), raw_contents(buffer));
}

TEST(ReplayBufferTest, LoadNamesTheSourceAndTheProblem) {
  ReplayBuffer buffer(3, 2, 1);
  for (int i = 0; i < 3; ++i) add_numbered(buffer, i);
  const std::string good = saved(buffer);
  // The section name (uint64 length + "replay buffer"), 6 int64 (sizes, observation dtype, size,
  // next_slot); then
  // each array as a uint64 count and its values: 3 slots of 2 observation floats, 1 action
  // float, 1 reward, 2 next-observation floats, 1 flag byte, 1 discount.
  constexpr std::size_t kHeader = 8 + 13 + 6 * 8;
  constexpr std::size_t kObservations = kHeader + 8;
  constexpr std::size_t kRewards = kObservations + 3 * 2 * 4 + 8 + 3 * 4 + 8;
  constexpr std::size_t kFlags = kRewards + 3 * 4 + 8 + 3 * 2 * 4 + 8;
  constexpr std::size_t kDiscounts = kFlags + 3 + 8;
  ASSERT_EQ(good.size(), kDiscounts + 3 * 4);
  EXPECT_EQ(load_error(good), "(no error)");
  const std::string source = std::string(kSource) + ": ";

  std::string bytes = good;
  bytes[8] = 'X';
  EXPECT_TRUE(contains(load_error(bytes), "expected the state of 'replay buffer', found 'Xeplay"))
      << load_error(bytes);

  EXPECT_TRUE(contains(load_error(good.substr(0, 30)), source + "truncated"))
      << load_error(good.substr(0, 30));
  EXPECT_TRUE(contains(load_error(good.substr(0, good.size() - 1)), source + "truncated"))
      << load_error(good.substr(0, good.size() - 1));
  EXPECT_TRUE(contains(load_error(good + "xy"), source + "2 bytes after the end of the state"))
      << load_error(good + "xy");

  EXPECT_TRUE(contains(load_error(good, 4), source + "capacity is 3, expected 4"))
      << load_error(good, 4);
  EXPECT_TRUE(contains(load_error(good, 3, 5), "observation_size is 2, expected 5"));
  EXPECT_TRUE(contains(load_error(good, 3, 2, 2), "action_size is 1, expected 2"));
  bytes = good;
  bytes[kHeader - 24] = 1;  // the dtype: uint8 observations into this float32 buffer
  EXPECT_TRUE(contains(load_error(bytes),
                       source + "observation dtype (0 float32, 1 uint8) is 1, expected 0"))
      << load_error(bytes);

  bytes = good;
  bytes[kHeader - 8] = 1;  // next_slot 1 while full is fine ...
  EXPECT_EQ(load_error(bytes), "(no error)");
  bytes[kHeader - 8] = 3;  // ... but not past the end
  EXPECT_TRUE(contains(load_error(bytes), source + "invalid position: size 3, next_slot 3"))
      << load_error(bytes);

  const auto with_float = [&good](std::size_t offset, float value) {
    std::string b = good;
    std::memcpy(&b[offset], &value, sizeof(value));
    return b;
  };
  bytes = with_float(kRewards + 4, std::numeric_limits<float>::quiet_NaN());
  EXPECT_TRUE(contains(load_error(bytes), source + "slot 1: non-finite reward"))
      << load_error(bytes);
  bytes = with_float(kObservations + 4 * 4, std::numeric_limits<float>::infinity());
  EXPECT_TRUE(contains(load_error(bytes), source + "slot 2: non-finite observation"))
      << load_error(bytes);
  bytes = with_float(kDiscounts, 1.5f);
  EXPECT_TRUE(contains(load_error(bytes), source + "slot 0: discount 1.5")) << load_error(bytes);
  bytes = good;
  bytes[kFlags + 2] = 2;
  EXPECT_TRUE(contains(load_error(bytes), source + "slot 2: terminated flag is 2, expected 0 or 1"))
      << load_error(bytes);
}

// Byte observations (images, grids) stay bytes in the buffer and become floats, times the byte
// scale, in the sampled batch.
TEST(ReplayBufferTest, KeepsUint8ObservationsAsBytesAndScalesThemInBatches) {
  const float scale = 1.0f / 255.0f;
  ReplayBuffer buffer(4, 3, 1, core::Dtype::uint8, scale);
  EXPECT_EQ(buffer.observation_dtype(), core::Dtype::uint8);
  const std::uint8_t observation[3] = {0, 255, 51};
  const std::uint8_t next_observation[3] = {102, 0, 255};
  const float action = 2.0f;
  Transition t;
  t.observation = observation;
  t.action = &action;
  t.reward = 0.5f;
  t.next_observation = next_observation;
  buffer.add(t);
  TransitionBatch batch;
  const std::int64_t slot = 0;
  buffer.gather(&slot, 1, batch);
  EXPECT_EQ(batch.observations, (std::vector<float>{0 * scale, 255 * scale, 51 * scale}));
  EXPECT_EQ(batch.next_observations, (std::vector<float>{102 * scale, 0 * scale, 255 * scale}));
  EXPECT_EQ(batch.actions, std::vector<float>{2.0f});

  // The saved state holds the bytes, and loads only into a uint8 buffer of the same sizes.
  const std::string bytes = saved(buffer);
  ReplayBuffer copy(4, 3, 1, core::Dtype::uint8, scale);
  core::StateReader in(bytes, kSource);
  copy.load_state(in);
  in.expect_end();
  TransitionBatch copied;
  copy.gather(&slot, 1, copied);
  EXPECT_EQ(copied.observations, batch.observations);
  EXPECT_TRUE(contains(load_error(bytes, 4, 3, 1),
                       "observation dtype (0 float32, 1 uint8) is 1, "
                       "expected 0"))
      << load_error(bytes, 4, 3, 1);
  // A byte observation takes a quarter of a float one in the state, as in memory.
  ReplayBuffer floats(4, 3, 1);
  const float float_observation[3] = {0, 1, 0.2f};
  t.observation = float_observation;
  t.next_observation = float_observation;
  floats.add(t);
  EXPECT_EQ(saved(floats).size() - bytes.size(), 2 * 3 * (4 - 1));
}

}  // namespace
}  // namespace mnrl::replay
