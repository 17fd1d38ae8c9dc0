// Batch wrappers: RunningMeanStd, NormalizeObservation, NormalizeReward, EpisodeStatistics.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "envs/episode_statistics.h"
#include "envs/normalize_observation.h"
#include "envs/normalize_reward.h"
#include "envs/running_mean_std.h"

namespace mnrl::envs {
namespace {

// Mean and population variance of column j of `rows` (row-major, `width` wide), two-pass.
std::pair<double, double> column_moments(const std::vector<float>& rows, std::size_t width,
                                         std::size_t j) {
  const std::size_t n = rows.size() / width;
  double mean = 0;
  for (std::size_t r = 0; r < n; ++r) mean += rows[r * width + j];
  mean /= static_cast<double>(n);
  double var = 0;
  for (std::size_t r = 0; r < n; ++r) var += (rows[r * width + j] - mean) * (rows[r * width + j] - mean);
  return {mean, var / static_cast<double>(n)};
}

std::vector<float> sample_rows(std::size_t rows, std::size_t width) {
  std::vector<float> values(rows * width);
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i)) * 3.0 + (i % width));
  }
  return values;
}

TEST(RunningMeanStdTest, UpdatesInPartsEqualOneUpdateOverAll) {
  const std::vector<float> rows = sample_rows(300, 3);
  RunningMeanStd whole(3);
  whole.update(rows.data(), 300);
  RunningMeanStd parts(3);
  parts.update(rows.data(), 100);
  parts.update(rows.data() + 300, 150);
  parts.update(rows.data() + 750, 50);
  for (std::size_t j = 0; j < 3; ++j) {
    const auto [mean, var] = column_moments(rows, 3, j);
    // The initial count of 1e-4 (with mean 0, variance 1) barely moves the result.
    EXPECT_NEAR(whole.mean()[j], mean, 1e-5);
    EXPECT_NEAR(whole.var()[j], var, 1e-5);
    EXPECT_NEAR(parts.mean()[j], whole.mean()[j], 1e-12);
    EXPECT_NEAR(parts.var()[j], whole.var()[j], 1e-12);
  }
  EXPECT_DOUBLE_EQ(parts.count(), 300 + 1e-4);
}

TEST(RunningMeanStdTest, MergingStatisticsGatheredApartEqualsGatheringThemTogether) {
  const std::vector<float> rows = sample_rows(200, 2);
  RunningMeanStd together(2);
  together.update(rows.data(), 200);
  RunningMeanStd first(2), second(2);
  first.update(rows.data(), 120);
  second.update(rows.data() + 240, 80);
  first.merge(second);
  for (std::size_t j = 0; j < 2; ++j) {
    EXPECT_NEAR(first.mean()[j], together.mean()[j], 1e-6);
    EXPECT_NEAR(first.var()[j], together.var()[j], 1e-5);
  }
  EXPECT_THROW(first.merge(RunningMeanStd(3)), std::invalid_argument);
}

TEST(RunningMeanStdTest, WhatWasAddedSinceAnEarlierStateMergesBackIntoIt) {
  // Two processes start from the same statistics, each adds rows of its own; merging what each
  // added into the common start gives what one process seeing every row would hold.
  const std::vector<float> rows = sample_rows(300, 2);
  RunningMeanStd agreed(2);
  agreed.update(rows.data(), 100);
  RunningMeanStd first = agreed, second = agreed, together = agreed;
  first.update(rows.data() + 200, 120);
  second.update(rows.data() + 440, 80);
  together.update(rows.data() + 200, 200);
  RunningMeanStd merged = agreed;
  merged.merge(first.added_since(agreed));
  merged.merge(second.added_since(agreed));
  EXPECT_DOUBLE_EQ(merged.count(), together.count());
  for (std::size_t j = 0; j < 2; ++j) {
    EXPECT_NEAR(merged.mean()[j], together.mean()[j], 1e-9);
    EXPECT_NEAR(merged.var()[j], together.var()[j], 1e-9);
  }
  const RunningMeanStd nothing = agreed.added_since(agreed);
  EXPECT_EQ(nothing.count(), 0.0);
  merged = agreed;
  merged.merge(nothing);
  EXPECT_EQ(merged.mean(), agreed.mean());
  EXPECT_EQ(merged.var(), agreed.var());
}

TEST(RunningMeanStdTest, StateReadsBackBitForBit) {
  RunningMeanStd stats(4);
  const std::vector<float> rows = sample_rows(33, 4);
  stats.update(rows.data(), 33);
  mnrl::core::StateWriter out;
  stats.save_state(out);
  RunningMeanStd back(4);
  mnrl::core::StateReader in(out.bytes(), "stats.bin");
  back.load_state(in);
  in.expect_end();
  EXPECT_EQ(back.mean(), stats.mean());
  EXPECT_EQ(back.var(), stats.var());
  EXPECT_EQ(back.count(), stats.count());
}

TEST(RunningMeanStdTest, LoadStateRefusesOtherSizesAndImpossibleValues) {
  const auto error_of = [](const mnrl::core::StateWriter& out, std::size_t size) -> std::string {
    RunningMeanStd stats(size);
    mnrl::core::StateReader in(out.bytes(), "obs.bin");
    try {
      stats.load_state(in);
    } catch (const mnrl::core::StateError& e) {
      EXPECT_EQ(stats.count(), RunningMeanStd(size).count()) << "unchanged after a refusal";
      return e.what();
    }
    return "(no error)";
  };
  mnrl::core::StateWriter two;
  RunningMeanStd(2).save_state(two);
  EXPECT_NE(error_of(two, 3).find("obs.bin: expected 3 values, found 2"), std::string::npos)
      << error_of(two, 3);
  mnrl::core::StateWriter negative;
  negative.value(5.0);
  negative.values(std::vector<double>{0, 0});
  negative.values(std::vector<double>{1, -2});
  EXPECT_NE(error_of(negative, 2).find("not finite or is negative"), std::string::npos);
  mnrl::core::StateWriter zero_count;
  zero_count.value(0.0);
  zero_count.values(std::vector<double>{0, 0});
  zero_count.values(std::vector<double>{1, 1});
  EXPECT_NE(error_of(zero_count, 2).find("count that is not > 0"), std::string::npos);
  const std::string truncated = two.bytes().substr(0, two.bytes().size() - 3);
  RunningMeanStd stats(2);
  mnrl::core::StateReader in(truncated, "obs.bin");
  EXPECT_THROW(stats.load_state(in), mnrl::core::StateError);
}

// A batch of two envs with two-value observations.
struct TwoEnvBatch {
  std::vector<float> observations = {1, 10, 3, 30};
  std::vector<float> final_observations = {0, 0, 5, 50};
  std::vector<float> rewards = {1, -2};
  std::vector<std::uint8_t> terminated = {0, 1};
  std::vector<std::uint8_t> truncated = {0, 0};
  Batch view() {
    return {2, 2, observations.data(), final_observations.data(), rewards.data(),
            terminated.data(), truncated.data()};
  }
};

TEST(NormalizeObservationTest, NormalizesWithStatisticsIncludingThisBatchAndFinalRows) {
  auto stats = std::make_shared<RunningMeanStd>(2);
  NormalizeObservation normalize(stats, 10.0, 1e-8, true);
  TwoEnvBatch batch;
  RunningMeanStd expected(2);
  expected.update(batch.observations.data(), 2);
  normalize.on_step(batch.view());
  EXPECT_EQ(stats->mean(), expected.mean());
  const auto normalized = [&](float x, std::size_t j) {
    return static_cast<float>((x - expected.mean()[j]) / std::sqrt(expected.var()[j] + 1e-8));
  };
  EXPECT_EQ(batch.observations, (std::vector<float>{normalized(1, 0), normalized(10, 1),
                                                    normalized(3, 0), normalized(30, 1)}));
  // Only env 1 ended: its final observation is normalized, env 0's row is left alone.
  EXPECT_EQ(batch.final_observations,
            (std::vector<float>{0, 0, normalized(5, 0), normalized(50, 1)}));
}

TEST(NormalizeObservationTest, ClipsAndCanReadWithoutUpdating) {
  auto stats = std::make_shared<RunningMeanStd>(2);
  const std::vector<float> warmup = {0, 0, 0.001f, 0.001f};
  stats->update(warmup.data(), 2);
  const RunningMeanStd before = *stats;
  NormalizeObservation frozen(stats, 5.0, 1e-8, false);
  TwoEnvBatch batch;
  frozen.on_reset(batch.view());
  EXPECT_EQ(stats->mean(), before.mean());
  EXPECT_EQ(stats->count(), before.count());
  EXPECT_EQ(batch.observations, (std::vector<float>{5, 5, 5, 5}));
}

TEST(NormalizeRewardTest, ScalesByTheStdOfDiscountedReturnsAsSb3) {
  auto stats = std::make_shared<RunningMeanStd>(1);
  NormalizeReward normalize(stats, 2, 0.9, 10.0, 1e-8, true);
  RunningMeanStd expected(1);
  std::vector<double> returns = {0, 0};
  const std::vector<std::vector<float>> rewards = {{1, -2}, {0.5f, 4}, {2, 1}};
  const std::vector<std::vector<std::uint8_t>> ends = {{0, 1}, {0, 0}, {1, 0}};
  TwoEnvBatch batch;
  normalize.on_reset(batch.view());
  for (std::size_t t = 0; t < rewards.size(); ++t) {
    batch.rewards = rewards[t];
    batch.terminated = ends[t];
    normalize.on_step(batch.view());
    for (std::size_t i = 0; i < 2; ++i) returns[i] = returns[i] * 0.9 + rewards[t][i];
    expected.update(returns.data(), 2);
    for (std::size_t i = 0; i < 2; ++i) {
      const double scaled = rewards[t][i] / std::sqrt(expected.var()[0] + 1e-8);
      EXPECT_EQ(batch.rewards[i], static_cast<float>(std::clamp(scaled, -10.0, 10.0)))
          << "step " << t << " env " << i;
      if (ends[t][i]) returns[i] = 0;
    }
  }
  EXPECT_EQ(stats->var(), expected.var());
}

TEST(NormalizeRewardTest, ClipsLargeRewards) {
  auto stats = std::make_shared<RunningMeanStd>(1);
  NormalizeReward normalize(stats, 2, 0.99, 1.0, 1e-8, false);  // variance stays 1
  TwoEnvBatch batch;
  batch.rewards = {3, -0.5f};
  normalize.on_step(batch.view());
  EXPECT_EQ(batch.rewards, (std::vector<float>{1, -0.5f}));
  EXPECT_THROW(NormalizeReward(std::make_shared<RunningMeanStd>(2), 2, 0.99, 1, 1e-8, true),
               std::invalid_argument);
}

TEST(EpisodeStatisticsTest, CountsReturnsAndLengthsPerEnv) {
  EpisodeStatistics stats(2);
  TwoEnvBatch batch;
  stats.on_reset(batch.view());
  batch.terminated = {0, 0};
  batch.rewards = {1, 2};
  stats.on_step(batch.view());
  batch.rewards = {3, 4};
  batch.truncated = {1, 0};
  stats.on_step(batch.view());
  EXPECT_EQ(stats.returns()[0], 4.0);
  EXPECT_EQ(stats.lengths()[0], 2);
  batch.truncated = {0, 1};
  batch.rewards = {7, 0.5f};
  stats.on_step(batch.view());
  EXPECT_EQ(stats.returns()[1], 6.5);
  EXPECT_EQ(stats.lengths()[1], 3);
  EXPECT_EQ(stats.returns()[0], 4.0);  // env 0's last finished episode is kept
}

}  // namespace
}  // namespace mnrl::envs
