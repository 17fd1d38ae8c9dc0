#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace mnrl::experiments {

// Aggregate scores over runs (seeds) with interval estimates, as rliable reports them
// (Agarwal et al. 2021, "Deep RL at the Edge of the Statistical Precipice").

// The interquartile mean: the mean of the middle half of `scores`, a quarter cut from each end
// (floor(n/4) values each, as scipy.stats.trim_mean(scores, 0.25), which rliable calls). n >= 1.
double interquartile_mean(std::vector<double> scores);

double mean_of(const std::vector<double>& scores);
double median_of(std::vector<double> scores);

// The q-quantile (0 <= q <= 1) of `values` with linear interpolation between order statistics
// (numpy.percentile's default). n >= 1.
double quantile(std::vector<double> values, double q);

// The probability that a run of X scores above a run of Y: the fraction of the pairs (x, y)
// with x > y, a tie counting half (the Mann-Whitney U statistic over |X||Y|, as rliable).
double probability_of_improvement(const std::vector<double>& x, const std::vector<double>& y);

struct Interval {
  double low = 0.0;
  double high = 0.0;
};

// A percentile bootstrap confidence interval (`confidence`, e.g. 0.95) of an aggregate over
// runs: the runs resampled with replacement `resamples` times from `random`.
enum class Aggregate { kMean, kInterquartileMean, kMedian };
double aggregate(Aggregate which, const std::vector<double>& scores);
Interval bootstrap_interval(Aggregate which, const std::vector<double>& scores, int resamples,
                            double confidence, std::mt19937_64& random);

// The same for probability_of_improvement(x, y): X's and Y's runs resampled independently
// (rliable's stratified bootstrap with one task).
Interval improvement_interval(const std::vector<double>& x, const std::vector<double>& y,
                              int resamples, double confidence, std::mt19937_64& random);

}  // namespace mnrl::experiments
