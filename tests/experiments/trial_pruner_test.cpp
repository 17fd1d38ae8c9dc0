// The median pruner (Optuna's MedianPruner) on made-up trials.
#include "experiments/studies/trial_pruner.h"

#include <gtest/gtest.h>

namespace {
using namespace mnrl::experiments;

TrialRecord trial_with(int number, const std::string& state,
                       std::vector<std::pair<std::int64_t, double>> reports) {
  TrialRecord t;
  t.number = number;
  t.state = state;
  t.reports = std::move(reports);
  return t;
}

TEST(TrialPrunerTest, PrunesBelowTheMedianOfCompleteTrialsAtThatStep) {
  const std::vector<TrialRecord> done{
      trial_with(0, "complete", {{1000, 10}, {2000, 50}}),
      trial_with(1, "complete", {{1000, 20}, {2000, 80}}),
      trial_with(2, "complete", {{1000, 30}, {2000, 90}}),
      trial_with(3, "pruned", {{1000, 500}}),  // only complete trials count
  };
  PrunerOptions options;
  options.startup_trials = 3;
  std::vector<TrialRecord> trials = done;
  trials.push_back(trial_with(4, "running", {{1000, 19}}));
  EXPECT_TRUE(should_prune(options, trials.back(), trials));  // median 20 at step 1000
  trials.back().reports = {{1000, 21}};
  EXPECT_FALSE(should_prune(options, trials.back(), trials));
  // Its best so far counts: 25 at 1000 then 60 at 2000 (below 80) is pruned, 85 once is not.
  trials.back().reports = {{1000, 25}, {2000, 60}};
  EXPECT_TRUE(should_prune(options, trials.back(), trials));
  trials.back().reports = {{1000, 85}, {2000, 60}};
  EXPECT_FALSE(should_prune(options, trials.back(), trials));
  // Between reports of the others: their latest at or before the step (1500: 10, 20, 30).
  trials.back().reports = {{1500, 19}};
  EXPECT_TRUE(should_prune(options, trials.back(), trials));
}

TEST(TrialPrunerTest, WaitsForStartupTrialsAndWarmupSteps) {
  std::vector<TrialRecord> trials{trial_with(0, "complete", {{1000, 50}}),
                                  trial_with(1, "running", {{1000, 1}})};
  PrunerOptions options;
  options.startup_trials = 2;
  EXPECT_FALSE(should_prune(options, trials.back(), trials));  // one complete of two
  options.startup_trials = 1;
  EXPECT_TRUE(should_prune(options, trials.back(), trials));
  options.warmup_steps = 1000;
  EXPECT_FALSE(should_prune(options, trials.back(), trials));
  options.warmup_steps = 0;
  options.kind = "none";
  EXPECT_FALSE(should_prune(options, trials.back(), trials));
}

// Successive halving with rungs at 1000, 3000, 9000 steps: a trial goes on past a rung only among
// the best third of the values there so far (the best one while fewer than three).
TEST(TrialPrunerTest, AshaKeepsTheBestThirdAtEachRung) {
  PrunerOptions options;
  options.kind = "asha";
  options.min_steps = 1000;
  std::vector<TrialRecord> trials{trial_with(0, "complete", {{1000, 10}, {3000, 40}}),
                                  trial_with(1, "pruned", {{1000, 5}}),
                                  trial_with(2, "running", {{1000, 8}})};
  // Three at the first rung: one goes on, the best (10).
  EXPECT_TRUE(should_prune(options, trials[2], trials));
  trials[2].reports = {{1000, 12}};
  EXPECT_FALSE(should_prune(options, trials[2], trials));
  // Decided at the rung once: a later evaluation before the next rung is not judged again.
  trials[2].reports = {{1000, 12}, {2000, 1}};
  EXPECT_FALSE(should_prune(options, trials[2], trials));
  // At 3000 (its first evaluation past it, 3500): two trials there, the best goes on.
  trials[2].reports = {{1000, 12}, {2000, 1}, {3500, 39}};
  EXPECT_TRUE(should_prune(options, trials[2], trials));
  trials[2].reports = {{1000, 12}, {2000, 1}, {3500, 41}};
  EXPECT_FALSE(should_prune(options, trials[2], trials));
  // Evaluations that arrive together are judged at every rung they reached: 1000 and 3000 here
  // (12 goes on at 1000, 39 not at 3000).
  trials[2].reports = {{1000, 12}, {3500, 39}};
  EXPECT_TRUE(should_prune(options, trials[2], trials, /*judged_through=*/-1));
  EXPECT_TRUE(should_prune(options, trials[2], trials, /*judged_through=*/0));
  trials[2].reports = {{1000, 8}, {3500, 45}};
  EXPECT_FALSE(should_prune(options, trials[2], trials, /*judged_through=*/1000));
  EXPECT_TRUE(should_prune(options, trials[2], trials, /*judged_through=*/0));  // 8 at 1000
  // The first rung at a trial's first evaluation where min_steps is 0.
  options.min_steps = 0;
  trials.push_back(trial_with(3, "running", {{1000, 9}}));
  EXPECT_TRUE(should_prune(options, trials[3], trials));
}

}  // namespace
