#include "experiments/studies/trial_pruner.h"

#include <algorithm>

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

}  // namespace

bool should_prune(const PrunerOptions& options, const TrialRecord& trial,
                  const std::vector<TrialRecord>& trials) {
  if (options.kind == "none" || trial.reports.empty()) return false;
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
