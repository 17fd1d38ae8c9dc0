#include "experiments/studies/trial_pruner.h"

#include <algorithm>
#include <functional>

#include "experiments/studies/score_statistics.h"

namespace mnrl::experiments {
namespace {

// What `trial` had reported by `step`: its latest report at or before it, if any.
const double* reported_by(const TrialRecord& trial, std::int64_t step) {
  const double* latest = nullptr;
  for (const auto& report : trial.reports) {
    if (report.first > step) break;
    latest = &report.second;
  }
  return latest;
}

// A trial's value at the rung of `rung_step`: its first evaluation at or past it.
const double* value_at_rung(const TrialRecord& trial, std::int64_t rung_step) {
  for (const auto& report : trial.reports) {
    if (report.first >= rung_step) return &report.second;
  }
  return nullptr;
}

bool asha_prunes(const PrunerOptions& options, const TrialRecord& trial,
                 const std::vector<TrialRecord>& trials, std::int64_t judged_through) {
  const std::int64_t step = trial.reports.back().first;
  const std::int64_t before = judged_through >= 0 ? judged_through
                              : trial.reports.size() > 1
                                  ? trial.reports[trial.reports.size() - 2].first
                                  : -1;
  const std::int64_t first_rung =
      options.min_steps > 0 ? options.min_steps : trial.reports.front().first;
  // The rungs the new evaluations reached first: each decided there, once.
  for (std::int64_t rung = first_rung; rung <= step; rung *= options.reduction_factor) {
    if (rung <= before) continue;
    const double value = *value_at_rung(trial, rung);
    std::vector<double> competing;
    for (const TrialRecord& other : trials) {
      if (const double* v = value_at_rung(other, rung)) competing.push_back(*v);
    }
    std::sort(competing.begin(), competing.end(), std::greater<>());
    const std::size_t promoted = std::max<std::size_t>(
        1, competing.size() / static_cast<std::size_t>(options.reduction_factor));
    if (value < competing[promoted - 1]) return true;
  }
  return false;
}

}  // namespace

bool should_prune(const PrunerOptions& options, const TrialRecord& trial,
                  const std::vector<TrialRecord>& trials, std::int64_t judged_through) {
  if (options.kind == "none" || trial.reports.empty()) return false;
  if (options.kind == "asha") return asha_prunes(options, trial, trials, judged_through);
  const std::int64_t step = trial.reports.back().first;
  if (step <= options.warmup_steps) return false;
  std::vector<double> others;
  int complete = 0;
  for (const TrialRecord& other : trials) {
    if (other.state != "complete" || other.number == trial.number) continue;
    ++complete;
    if (const double* value = reported_by(other, step)) others.push_back(*value);
  }
  if (complete < options.startup_trials || others.empty()) return false;
  double best = trial.reports.front().second;
  for (const auto& report : trial.reports) best = std::max(best, report.second);
  return best < median_of(others);
}

}  // namespace mnrl::experiments
