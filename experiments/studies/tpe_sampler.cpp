#include "experiments/studies/tpe_sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mnrl::experiments {
namespace {

constexpr double kPi = 3.14159265358979323846;

// A trial's rank for the split: complete ones by objective, above pruned ones by their best
// evaluation.
struct Ranked {
  const TrialRecord* trial;
  bool complete;
  double score;
};

std::vector<Ranked> ranked_trials(const std::vector<TrialRecord>& trials) {
  std::vector<Ranked> ranked;
  for (const TrialRecord& t : trials) {
    if (t.state == "complete" && t.value) {
      ranked.push_back({&t, true, *t.value});
    } else if (t.state == "pruned" && !t.reports.empty()) {
      double best = -std::numeric_limits<double>::infinity();
      for (const auto& report : t.reports) best = std::max(best, report.second);
      ranked.push_back({&t, false, best});
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
    return a.complete != b.complete ? a.complete : a.score > b.score;
  });
  return ranked;
}

// A mixture of Gaussians truncated to [low, high], one per observation plus a prior one over the
// whole range (Optuna's Parzen estimator with consider_prior and its "magic clip" of the
// bandwidths).
struct Parzen {
  std::vector<double> means, sigmas;
  double low = 0.0, high = 1.0;

  Parzen(std::vector<double> observations, double low_, double high_) : low(low_), high(high_) {
    const double range = high - low;
    observations.push_back(0.5 * (low + high));  // the prior
    std::vector<double> sorted = observations;
    std::sort(sorted.begin(), sorted.end());
    const double smallest = range / std::min(100.0, 1.0 + static_cast<double>(observations.size()));
    for (std::size_t i = 0; i < observations.size(); ++i) {
      const double x = observations[i];
      if (i + 1 == observations.size()) {  // the prior: the whole range
        means.push_back(x);
        sigmas.push_back(range);
        continue;
      }
      // The wider gap to its neighbours (or the range's ends).
      const auto at = std::lower_bound(sorted.begin(), sorted.end(), x);
      const double left = at == sorted.begin() ? x - low : x - *(at - 1);
      const double right = at + 1 == sorted.end() ? high - x : *(at + 1) - x;
      means.push_back(x);
      sigmas.push_back(std::clamp(std::max(left, right), smallest, range));
    }
  }

  static double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

  double density(double x) const {
    double sum = 0.0;
    for (std::size_t i = 0; i < means.size(); ++i) {
      const double z = (x - means[i]) / sigmas[i];
      const double mass =
          normal_cdf((high - means[i]) / sigmas[i]) - normal_cdf((low - means[i]) / sigmas[i]);
      sum += std::exp(-0.5 * z * z) / (sigmas[i] * std::sqrt(2.0 * kPi) * std::max(mass, 1e-12));
    }
    return sum / static_cast<double>(means.size());
  }

  double sample(std::mt19937_64& random) const {
    std::uniform_int_distribution<std::size_t> component(0, means.size() - 1);
    const std::size_t i = component(random);
    std::normal_distribution<double> normal(means[i], sigmas[i]);
    for (int tries = 0; tries < 100; ++tries) {
      const double x = normal(random);
      if (x >= low && x <= high) return x;
    }
    return std::clamp(means[i], low, high);
  }
};

// A parameter's value as the estimator sees it: log where log, ints widened by half a step.
double to_space(const Parameter& p, double value) { return p.log ? std::log(value) : value; }

std::pair<double, double> bounds(const Parameter& p) {
  const double half = p.kind == Parameter::Kind::kInt ? 0.5 : 0.0;
  return {to_space(p, p.low - (p.log ? half * 0.999 : half)), to_space(p, p.high + half)};
}

ParameterValue draw_numeric(const Parameter& p, const std::vector<double>& good,
                            const std::vector<double>& bad, const TpeOptions& options,
                            std::mt19937_64& random) {
  const auto [low, high] = bounds(p);
  std::vector<double> good_x, bad_x;
  for (const double v : good) good_x.push_back(to_space(p, v));
  for (const double v : bad) bad_x.push_back(to_space(p, v));
  const Parzen l(good_x, low, high), g(bad_x, low, high);
  double best_x = l.sample(random), best_ratio = -std::numeric_limits<double>::infinity();
  for (int i = 0; i < options.candidates; ++i) {
    const double x = i == 0 ? best_x : l.sample(random);
    const double ratio = std::log(l.density(x) + 1e-300) - std::log(g.density(x) + 1e-300);
    if (ratio > best_ratio) {
      best_ratio = ratio;
      best_x = x;
    }
  }
  return value_of(p, p.log ? std::exp(best_x) : best_x);
}

ParameterValue draw_categorical(const Parameter& p, const std::vector<double>& good,
                                const std::vector<double>& bad, const TpeOptions& options,
                                std::mt19937_64& random) {
  const std::size_t n = p.choices.size();
  std::vector<double> l(n, 1.0), g(n, 1.0);  // a prior weight of one per choice
  for (const double v : good) l.at(static_cast<std::size_t>(v)) += 1.0;
  for (const double v : bad) g.at(static_cast<std::size_t>(v)) += 1.0;
  double l_sum = 0.0, g_sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    l_sum += l[i];
    g_sum += g[i];
  }
  std::discrete_distribution<std::size_t> from_l(l.begin(), l.end());
  std::size_t best = from_l(random);
  double best_ratio = -std::numeric_limits<double>::infinity();
  for (int i = 0; i < options.candidates; ++i) {
    const std::size_t c = i == 0 ? best : from_l(random);
    const double ratio = std::log(l[c] / l_sum) - std::log(g[c] / g_sum);
    if (ratio > best_ratio) {
      best_ratio = ratio;
      best = c;
    }
  }
  return value_of(p, static_cast<double>(best));
}

}  // namespace

std::vector<ParameterValue> tpe_draw(const std::vector<Parameter>& space,
                                     const std::vector<TrialRecord>& trials,
                                     const TpeOptions& options, std::mt19937_64& random) {
  const std::vector<Ranked> ranked = ranked_trials(trials);
  std::vector<ParameterValue> values;
  if (static_cast<int>(ranked.size()) < options.startup_trials) {
    for (const Parameter& p : space) values.push_back(draw(p, random));
    return values;
  }
  const std::size_t good_count = std::min<std::size_t>(
      25, static_cast<std::size_t>(std::ceil(0.1 * static_cast<double>(ranked.size()))));
  for (const Parameter& p : space) {
    std::vector<double> good, bad;
    for (std::size_t i = 0; i < ranked.size(); ++i) {
      const auto number = ranked[i].trial->numbers.find(p.key);
      if (number == ranked[i].trial->numbers.end()) continue;
      (i < good_count ? good : bad).push_back(number->second);
    }
    values.push_back(p.kind == Parameter::Kind::kCategorical
                         ? draw_categorical(p, good, bad, options, random)
                         : draw_numeric(p, good, bad, options, random));
  }
  return values;
}

}  // namespace mnrl::experiments
