#include "experiments/studies/score_statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace mnrl::experiments {
namespace {

std::vector<double> resampled(const std::vector<double>& scores, std::mt19937_64& random) {
  std::uniform_int_distribution<std::size_t> pick(0, scores.size() - 1);
  std::vector<double> out(scores.size());
  for (double& score : out) score = scores[pick(random)];
  return out;
}

Interval percentile_interval(std::vector<double> estimates, double confidence) {
  const double tail = (1.0 - confidence) / 2.0;
  return {quantile(estimates, tail), quantile(estimates, 1.0 - tail)};
}

}  // namespace

double mean_of(const std::vector<double>& scores) {
  return std::accumulate(scores.begin(), scores.end(), 0.0) / static_cast<double>(scores.size());
}

double interquartile_mean(std::vector<double> scores) {
  std::sort(scores.begin(), scores.end());
  const std::size_t cut = scores.size() / 4;
  const std::vector<double> middle(scores.begin() + static_cast<std::ptrdiff_t>(cut),
                                   scores.end() - static_cast<std::ptrdiff_t>(cut));
  return mean_of(middle);
}

double median_of(std::vector<double> scores) { return quantile(std::move(scores), 0.5); }

double quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double position = q * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, values.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return values[below] + (values[above] - values[below]) * fraction;
}

double probability_of_improvement(const std::vector<double>& x, const std::vector<double>& y) {
  double wins = 0.0;
  for (const double a : x) {
    for (const double b : y) wins += a > b ? 1.0 : a == b ? 0.5 : 0.0;
  }
  return wins / static_cast<double>(x.size() * y.size());
}

double aggregate(Aggregate which, const std::vector<double>& scores) {
  switch (which) {
    case Aggregate::kMean: return mean_of(scores);
    case Aggregate::kInterquartileMean: return interquartile_mean(scores);
    case Aggregate::kMedian: return median_of(scores);
  }
  return 0.0;
}

Interval bootstrap_interval(Aggregate which, const std::vector<double>& scores, int resamples,
                            double confidence, std::mt19937_64& random) {
  std::vector<double> estimates(static_cast<std::size_t>(resamples));
  for (double& estimate : estimates) estimate = aggregate(which, resampled(scores, random));
  return percentile_interval(std::move(estimates), confidence);
}

Interval improvement_interval(const std::vector<double>& x, const std::vector<double>& y,
                              int resamples, double confidence, std::mt19937_64& random) {
  std::vector<double> estimates(static_cast<std::size_t>(resamples));
  for (double& estimate : estimates) {
    const std::vector<double> x_sample = resampled(x, random);
    estimate = probability_of_improvement(x_sample, resampled(y, random));
  }
  return percentile_interval(std::move(estimates), confidence);
}

}  // namespace mnrl::experiments
