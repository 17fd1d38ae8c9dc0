#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/rng.h"
#include "core/state_stream.h"
#include "replay/prioritized_replay_buffer.h"

namespace mnrl::replay {
namespace {

// Adds a transition whose observation is `id` (observation_size 1, action_size 1).
std::int64_t add_numbered(PrioritizedReplayBuffer& buffer, float id) {
  const float observation = id;
  const float action = 0.0f;
  const float next_observation = id + 0.5f;
  Transition t;
  t.observation = &observation;
  t.action = &action;
  t.reward = id;
  t.next_observation = &next_observation;
  return buffer.add(t);
}

PrioritizedReplayBuffer filled(std::int64_t count, const PrioritizedReplayOptions& options,
                               std::int64_t capacity = 8) {
  PrioritizedReplayBuffer buffer(capacity, 1, 1, options);
  for (std::int64_t i = 0; i < count; ++i) add_numbered(buffer, static_cast<float>(i));
  return buffer;
}

void update(PrioritizedReplayBuffer& buffer, const std::vector<std::int64_t>& slots,
            const std::vector<float>& td_errors) {
  buffer.update_priorities(slots.data(), td_errors.data(), static_cast<std::int64_t>(slots.size()));
}

TEST(PrioritizedReplayTest, OptionsAreValidatedNamingTheKey) {
  auto message = [](const PrioritizedReplayOptions& options) {
    try {
      PrioritizedReplayBuffer buffer(4, 1, 1, options);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message({1.5, 0.4, 1e-6}), "per_alpha must be in [0, 1], got 1.5");
  EXPECT_EQ(message({-0.1, 0.4, 1e-6}), "per_alpha must be in [0, 1], got -0.1");
  EXPECT_EQ(message({0.6, 1.2, 1e-6}), "per_beta0 must be in [0, 1], got 1.2");
  EXPECT_EQ(message({0.6, 0.4, 0.0}), "per_epsilon must be positive and finite, got 0");
  EXPECT_EQ(message({std::nan(""), 0.4, 1e-6}).rfind("per_alpha", 0), 0u);
  EXPECT_EQ(message({0.0, 1.0, 1e-6}), "no error");  // the bounds themselves are fine
  EXPECT_EQ(message({1.0, 0.0, 1e-6}), "no error");
  EXPECT_THROW(PrioritizedReplayBuffer(0, 1, 1), std::invalid_argument);
}

TEST(PrioritizedReplayTest, NewTransitionsGetTheLargestPrioritySoFar) {
  const PrioritizedReplayOptions options{0.5, 0.4, 0.25};
  PrioritizedReplayBuffer buffer = filled(3, options, /*capacity=*/4);
  EXPECT_EQ(buffer.max_priority(), 1.0);
  for (std::int64_t s = 0; s < 3; ++s) EXPECT_EQ(buffer.priority(s), 1.0);
  EXPECT_EQ(buffer.total_priority(), 3.0);

  update(buffer, {1}, {-3.75f});  // p = 3.75 + 0.25 = 4, weight 4^0.5 = 2
  EXPECT_EQ(buffer.max_priority(), 4.0);
  EXPECT_EQ(buffer.priority(1), 2.0);
  EXPECT_EQ(add_numbered(buffer, 3.0f), 3);
  EXPECT_EQ(buffer.priority(3), 2.0);

  // A smaller priority does not lower the maximum (as in baselines).
  update(buffer, {1}, {0.0f});
  EXPECT_DOUBLE_EQ(buffer.priority(1), 0.5);
  EXPECT_EQ(buffer.max_priority(), 4.0);
  // Once full, an add overwrites the oldest slot and its priority.
  update(buffer, {0}, {0.0f});
  EXPECT_EQ(add_numbered(buffer, 4.0f), 0);
  EXPECT_EQ(buffer.priority(0), 2.0);
  EXPECT_DOUBLE_EQ(buffer.total_priority(), 2.0 + 0.5 + 1.0 + 2.0);
}

TEST(PrioritizedReplayTest, UpdatePrioritiesStoresAbsTdPlusEpsilonToTheAlpha) {
  const PrioritizedReplayOptions options{0.6, 0.4, 1e-6};
  PrioritizedReplayBuffer buffer = filled(4, options);
  update(buffer, {0, 2, 3, 2}, {2.0f, -0.5f, 0.0f, 7.0f});  // slot 2 listed twice: last wins
  EXPECT_DOUBLE_EQ(buffer.priority(0), std::pow(2.0 + 1e-6, 0.6));
  EXPECT_DOUBLE_EQ(buffer.priority(1), 1.0);  // untouched
  EXPECT_DOUBLE_EQ(buffer.priority(2), std::pow(7.0 + 1e-6, 0.6));
  EXPECT_DOUBLE_EQ(buffer.priority(3), std::pow(1e-6, 0.6));
  EXPECT_DOUBLE_EQ(buffer.max_priority(), 7.0 + 1e-6);
}

TEST(PrioritizedReplayTest, UpdatedPrioritiesSteerSampling) {
  PrioritizedReplayBuffer buffer = filled(4, {1.0, 0.4, 1e-6});
  update(buffer, {0, 1, 2, 3}, {0.0f, 0.0f, 1000.0f, 0.0f});
  core::Rng rng(3);
  TransitionBatch batch;
  buffer.sample(rng, 256, 0.4, batch);
  for (std::size_t k = 0; k < batch.indices.size(); ++k) {
    ASSERT_EQ(batch.indices[k], 2) << "row " << k;
    EXPECT_EQ(batch.observations[k], 2.0f);  // the rows are the slots' transitions
    EXPECT_EQ(batch.rewards[k], 2.0f);
    EXPECT_EQ(batch.next_observations[k], 2.5f);
  }
}

// P(i) = q_i / sum q, q = p^alpha; 2 million stratified draws (each frequency's standard error
// is below 4e-4, less with the stratification).
TEST(PrioritizedReplayTest, SamplingFrequenciesMatchPrioritiesToTheAlpha) {
  const PrioritizedReplayOptions options{0.6, 0.4, 1e-6};
  PrioritizedReplayBuffer buffer = filled(6, options, /*capacity=*/10);  // 4 slots never filled
  const std::vector<float> td{0.1f, 1.0f, 2.0f, 4.0f, 0.5f, 8.0f};
  update(buffer, {0, 1, 2, 3, 4, 5}, td);
  std::vector<double> expected(td.size());
  double total = 0.0;
  for (std::size_t i = 0; i < td.size(); ++i) {
    expected[i] = std::pow(static_cast<double>(td[i]) + 1e-6, 0.6);
    total += expected[i];
  }
  EXPECT_NEAR(buffer.total_priority(), total, 1e-12);

  core::Rng rng(12345);
  TransitionBatch batch;
  std::vector<std::int64_t> counts(td.size(), 0);
  std::int64_t draws = 0;
  for (int b = 0; b < 62500; ++b) {
    buffer.sample(rng, 32, 0.4, batch);
    for (const std::int64_t slot : batch.indices) {
      ASSERT_GE(slot, 0);
      ASSERT_LT(slot, 6);
      ++counts[static_cast<std::size_t>(slot)];
      ++draws;
    }
  }
  for (std::size_t i = 0; i < td.size(); ++i) {
    const double frequency = static_cast<double>(counts[i]) / static_cast<double>(draws);
    EXPECT_NEAR(frequency, expected[i] / total, 2e-3) << "slot " << i;
  }
}

TEST(PrioritizedReplayTest, AlphaZeroSamplesUniformlyWithUnitWeights) {
  PrioritizedReplayBuffer buffer = filled(4, {0.0, 0.4, 1e-6});
  update(buffer, {0, 1}, {100.0f, 0.0f});
  core::Rng rng(7);
  TransitionBatch batch;
  std::vector<std::int64_t> counts(4, 0);
  for (int b = 0; b < 10000; ++b) {
    buffer.sample(rng, 16, 1.0, batch);
    for (std::size_t k = 0; k < 16; ++k) {
      ++counts[static_cast<std::size_t>(batch.indices[k])];
      ASSERT_EQ(batch.weights[k], 1.0f);
    }
  }
  for (const std::int64_t c : counts) EXPECT_NEAR(c / 160000.0, 0.25, 3e-3);
}

// alpha = 1, epsilon = 0.5, |td| = 1.5, 3.5, 0: priorities 2, 4, 0.5, total 6.5, N = 3, so
// P = 4/13, 8/13, 1/13 and N * P = 12/13, 24/13, 3/13. With beta = 0.5 the largest weight is
// (3/13)^-0.5, and w = (12/3)^-0.5 = 0.5, (24/3)^-0.5 = 1/sqrt(8), 1.
TEST(PrioritizedReplayTest, ImportanceWeightsMatchHandComputation) {
  PrioritizedReplayBuffer buffer = filled(3, {1.0, 0.4, 0.5});
  update(buffer, {0, 1, 2}, {1.5f, -3.5f, 0.0f});
  const double expected[3] = {0.5, 1.0 / std::sqrt(8.0), 1.0};
  const double max_weight = std::pow(3.0 * 0.5 / 6.5, -0.5);
  for (std::int64_t s = 0; s < 3; ++s) {
    const double p = buffer.priority(s) / buffer.total_priority();
    EXPECT_NEAR(std::pow(3.0 * p, -0.5) / max_weight, expected[s], 1e-12);
  }

  core::Rng rng(1);
  TransitionBatch batch;
  std::vector<bool> seen(3, false);
  for (int b = 0; b < 50; ++b) {
    buffer.sample(rng, 13, 0.5, batch);
    ASSERT_EQ(batch.weights.size(), 13u);
    ASSERT_EQ(batch.indices.size(), 13u);
    for (std::size_t k = 0; k < 13; ++k) {
      const auto slot = static_cast<std::size_t>(batch.indices[k]);
      seen[slot] = true;
      EXPECT_FLOAT_EQ(batch.weights[k], static_cast<float>(expected[slot]));
      EXPECT_EQ(batch.observations[k], static_cast<float>(slot));
    }
  }
  EXPECT_TRUE(seen[0] && seen[1] && seen[2]);

  // beta = 0: no correction.
  buffer.sample(rng, 8, 0.0, batch);
  for (const float w : batch.weights) EXPECT_EQ(w, 1.0f);
}

// One draw per segment: with equal priorities and batch_size = size, every slot is drawn
// exactly once, in order.
TEST(PrioritizedReplayTest, SamplingIsStratifiedOverEqualSegments) {
  PrioritizedReplayBuffer buffer = filled(5, {0.6, 0.4, 1e-6});
  core::Rng rng(99);
  TransitionBatch batch;
  for (int b = 0; b < 100; ++b) {
    buffer.sample(rng, 5, 0.4, batch);
    ASSERT_EQ(batch.indices, (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  }
  buffer.sample(rng, 0, 0.4, batch);
  EXPECT_TRUE(batch.indices.empty());
}

TEST(PrioritizedReplayTest, BetaAnnealsLinearlyToOne) {
  EXPECT_DOUBLE_EQ(annealed_beta(0.4, 0.0), 0.4);
  EXPECT_DOUBLE_EQ(annealed_beta(0.4, 0.5), 0.7);
  EXPECT_DOUBLE_EQ(annealed_beta(0.4, 0.25), 0.55);
  EXPECT_DOUBLE_EQ(annealed_beta(0.4, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(annealed_beta(0.4, 3.0), 1.0);  // clamped
  EXPECT_DOUBLE_EQ(annealed_beta(0.4, -1.0), 0.4);
  EXPECT_DOUBLE_EQ(annealed_beta(1.0, 0.3), 1.0);
  EXPECT_THROW(annealed_beta(1.5, 0.3), std::invalid_argument);
  EXPECT_THROW(annealed_beta(0.4, std::nan("")), std::invalid_argument);
}

TEST(PrioritizedReplayTest, BadInputThrows) {
  PrioritizedReplayBuffer empty(4, 1, 1);
  core::Rng rng(0);
  TransitionBatch batch;
  EXPECT_THROW(empty.sample(rng, 4, 0.4, batch), std::logic_error);

  PrioritizedReplayBuffer buffer = filled(3, {0.6, 0.4, 1e-6});
  EXPECT_THROW(buffer.sample(rng, -1, 0.4, batch), std::invalid_argument);
  EXPECT_THROW(buffer.sample(rng, 4, 1.5, batch), std::invalid_argument);
  EXPECT_THROW(buffer.sample(rng, 4, std::nan(""), batch), std::invalid_argument);
  EXPECT_THROW(buffer.priority(3), std::out_of_range);

  // Bad slots (>= size(), also below capacity) and non-finite TD errors change nothing.
  const float inf = std::numeric_limits<float>::infinity();
  update(buffer, {0}, {5.0f});
  const double before = buffer.total_priority();
  EXPECT_THROW(update(buffer, {1, 3}, {1.0f, 1.0f}), std::invalid_argument);
  EXPECT_THROW(update(buffer, {1, -1}, {1.0f, 1.0f}), std::invalid_argument);
  EXPECT_THROW(update(buffer, {1, 2}, {1.0f, std::nanf("")}), std::invalid_argument);
  EXPECT_THROW(update(buffer, {1, 2}, {1.0f, -inf}), std::invalid_argument);
  EXPECT_THROW(buffer.update_priorities(nullptr, nullptr, -1), std::invalid_argument);
  EXPECT_EQ(buffer.total_priority(), before);
  EXPECT_EQ(buffer.priority(1), 1.0);
  EXPECT_DOUBLE_EQ(buffer.max_priority(), 5.0 + 1e-6);
}

std::string saved(const PrioritizedReplayBuffer& buffer) {
  core::StateWriter out;
  buffer.save_state(out);
  return out.bytes();
}

PrioritizedReplayBuffer loaded_from(const std::string& bytes, std::int64_t capacity,
                                    const PrioritizedReplayOptions& options) {
  PrioritizedReplayBuffer buffer(capacity, 1, 1, options);
  core::StateReader in(bytes, "replay.bin");
  buffer.load_state(in);
  in.expect_end();
  return buffer;
}

// The message loading `bytes` throws, or "(no error)".
std::string load_error(const std::string& bytes, const PrioritizedReplayOptions& options) {
  try {
    loaded_from(bytes, 8, options);
  } catch (const core::StateError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(PrioritizedReplaySaveTest, RoundTripIsExact) {
  const PrioritizedReplayOptions options{0.7, 0.5, 1e-5};
  PrioritizedReplayBuffer buffer = filled(9, options, /*capacity=*/6);  // wrapped around
  update(buffer, {0, 2, 5}, {0.123f, -4.56f, 1e-3f});

  PrioritizedReplayBuffer loaded = loaded_from(saved(buffer), 6, options);
  EXPECT_EQ(saved(loaded), saved(buffer));
  EXPECT_EQ(loaded.size(), buffer.size());
  EXPECT_EQ(loaded.next_slot(), buffer.next_slot());
  EXPECT_EQ(loaded.max_priority(), buffer.max_priority());
  EXPECT_EQ(loaded.total_priority(), buffer.total_priority());
  for (std::int64_t s = 0; s < buffer.size(); ++s)
    EXPECT_EQ(loaded.priority(s), buffer.priority(s));

  // Same draws, weights and rows from the same generator state.
  core::Rng rng_a(5), rng_b(5);
  TransitionBatch a, b;
  buffer.sample(rng_a, 16, 0.6, a);
  loaded.sample(rng_b, 16, 0.6, b);
  EXPECT_EQ(a.indices, b.indices);
  EXPECT_EQ(a.weights, b.weights);
  EXPECT_EQ(a.observations, b.observations);
  EXPECT_EQ(a.rewards, b.rewards);

  // New items still enter at the restored maximum.
  EXPECT_EQ(add_numbered(loaded, 42.0f), buffer.next_slot());
  EXPECT_EQ(loaded.priority(buffer.next_slot()), std::pow(buffer.max_priority(), 0.7));
}

TEST(PrioritizedReplaySaveTest, LoadRejectsMismatchesAndDamage) {
  const PrioritizedReplayOptions options{0.6, 0.4, 1e-6};
  const std::string good = saved(filled(3, options));
  EXPECT_EQ(load_error(good, options), "(no error)");
  const auto has = [](const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  };

  // Weights p^alpha saved under another alpha.
  EXPECT_TRUE(has(load_error(good, {0.5, 0.4, 1e-6}),
                  "replay.bin: saved with per_alpha 0.6, loading with per_alpha 0.5"))
      << load_error(good, {0.5, 0.4, 1e-6});
  // A uniform buffer's state has no priorities.
  ReplayBuffer uniform(8, 1, 1);
  core::StateWriter out;
  uniform.save_state(out);
  EXPECT_TRUE(has(load_error(out.bytes(), options), "replay.bin: truncated"))
      << load_error(out.bytes(), options);
  EXPECT_TRUE(has(load_error(good.substr(0, good.size() - 4), options), "replay.bin: truncated"));

  // The last of the 3 weights (doubles at the end), then the largest priority before them.
  const auto with_double = [&good](std::size_t from_end, double value) {
    std::string b = good;
    std::memcpy(&b[b.size() - from_end], &value, sizeof(value));
    return b;
  };
  EXPECT_TRUE(has(load_error(with_double(8, 0.0), options),
                  "replay.bin: slot 2: priority 0 is not positive and finite"))
      << load_error(with_double(8, 0.0), options);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(has(load_error(with_double(3 * 8 + 8 + 8, nan), options),
                  "replay.bin: max priority nan is not positive and finite"))
      << load_error(with_double(3 * 8 + 8 + 8, nan), options);
}

}  // namespace
}  // namespace mnrl::replay
