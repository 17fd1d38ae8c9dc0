// The aggregates `mnrl report` computes, on values worked out by hand (numpy's and scipy's
// conventions: tests/apps/report_statistics_check.py compares whole reports with numpy).
#include "experiments/studies/score_statistics.h"

#include <gtest/gtest.h>

namespace {
using namespace mnrl::experiments;

TEST(ScoreStatisticsTest, InterquartileMeanCutsAQuarterFromEachEndRoundedDown) {
  EXPECT_DOUBLE_EQ(interquartile_mean({4, 1, 3, 2}), 2.5);       // 1 and 4 cut
  EXPECT_DOUBLE_EQ(interquartile_mean({5, 1, 3}), 3.0);          // 3 / 4 rounds to none cut
  EXPECT_DOUBLE_EQ(interquartile_mean({9, 100, 1, 2, 3}), 14.0 / 3);  // 1 and 100 cut
  EXPECT_DOUBLE_EQ(interquartile_mean({1, 2, 3, 4, 5, 6, 7, 80}), 4.5);  // two cut each end
  EXPECT_DOUBLE_EQ(interquartile_mean({7}), 7.0);
}

TEST(ScoreStatisticsTest, QuantilesInterpolateLinearlyAsNumpy) {
  EXPECT_DOUBLE_EQ(quantile({4, 1, 3, 2}, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(quantile({4, 1, 3, 2}, 0.975), 3.925);
  EXPECT_DOUBLE_EQ(quantile({4, 1, 3, 2}, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile({4, 1, 3, 2}, 1.0), 4.0);
  EXPECT_DOUBLE_EQ(median_of({5, 1, 3, 100}), 4.0);
}

TEST(ScoreStatisticsTest, ProbabilityOfImprovementCountsTiesHalf) {
  EXPECT_DOUBLE_EQ(probability_of_improvement({1, 2}, {2}), 0.25);
  EXPECT_DOUBLE_EQ(probability_of_improvement({3, 4}, {1, 2}), 1.0);
  EXPECT_DOUBLE_EQ(probability_of_improvement({1, 2, 3}, {1, 2, 3}), 0.5);
}

TEST(ScoreStatisticsTest, BootstrapIntervalsCoverTheEstimateAndRepeatWithTheSeed) {
  const std::vector<double> scores{120, 95.5, 200, 200, 31, 150, 60};
  std::mt19937_64 random(7), again(7);
  const Interval wide = bootstrap_interval(Aggregate::kInterquartileMean, scores, 5000, 0.95, random);
  const Interval same = bootstrap_interval(Aggregate::kInterquartileMean, scores, 5000, 0.95, again);
  EXPECT_EQ(wide.low, same.low);
  EXPECT_EQ(wide.high, same.high);
  const double iqm = interquartile_mean(scores);
  EXPECT_LT(wide.low, iqm);
  EXPECT_GT(wide.high, iqm);
  const Interval narrow = bootstrap_interval(Aggregate::kInterquartileMean, scores, 5000, 0.5, random);
  EXPECT_GT(narrow.low, wide.low);
  EXPECT_LT(narrow.high, wide.high);
  // Runs that all score alike leave nothing to resample.
  const Interval flat = bootstrap_interval(Aggregate::kMean, {3, 3, 3}, 100, 0.95, random);
  EXPECT_EQ(flat.low, 3.0);
  EXPECT_EQ(flat.high, 3.0);
  const Interval certain = improvement_interval({5, 6}, {1, 2}, 100, 0.95, random);
  EXPECT_EQ(certain.low, 1.0);
  EXPECT_EQ(certain.high, 1.0);
}

}  // namespace
