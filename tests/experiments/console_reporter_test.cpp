#include "experiments/metrics/console_reporter.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace mnrl::experiments {
namespace {

bool holds(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A reporter on a clock the test moves.
struct Reporter {
  explicit Reporter(std::int64_t total_steps, std::int64_t first_step = 0)
      : console(stdout, total_steps, 0, first_step, ProgressMode::kNone, [this] { return now; }) {}
  double now = 100.0;
  ConsoleReporter console;
};

// The evaluation shown is the latest, with its step: at step 40000 the line showed the
// evaluation of step 20000 as if it were current.
TEST(ConsoleReporterTest, ShowsTheEvaluationWithItsStep) {
  Reporter r(100000);
  r.console.scalar(20000, "eval/mean_return", 120.0);
  r.console.scalar(20000, "eval/std_return", 4.0);
  EXPECT_TRUE(holds(r.console.line(40000), "eval 120.0 ± 4.0 @20000")) << r.console.line(40000);
  r.console.scalar(40000, "eval/mean_return", 480.2);
  r.console.scalar(40000, "eval/std_return", 3.1);
  EXPECT_TRUE(holds(r.console.line(40000), "eval 480.2 ± 3.1 @40000")) << r.console.line(40000);
}

// The first line showed `step 1/30000 | 35 SPS | ETA 14m14s`, a rate from a few milliseconds.
TEST(ConsoleReporterTest, ShowsNoRateBeforeItMeansSomething) {
  Reporter r(30100, 1000);
  r.now += 0.05;
  const std::string first = r.console.line(1001);
  EXPECT_FALSE(holds(first, "SPS")) << first;
  EXPECT_FALSE(holds(first, "ETA")) << first;
  r.now += ConsoleReporter::kRateSeconds;
  const std::string later = r.console.line(1000 + 4100);  // 4100 steps in 2.05 s
  EXPECT_TRUE(holds(later, "| 2000 SPS")) << later;
  EXPECT_TRUE(holds(later, "| ETA 12.5s")) << later;  // 25000 steps to go
}

// The progress never reads more than 100% though the last vector step passes total_steps.
TEST(ConsoleReporterTest, StopsAtOneHundredPercent) {
  Reporter r(100000);
  const std::string line = r.console.line(100096);
  EXPECT_EQ(line.rfind("[100.0%] step 100096/100000", 0), 0u) << line;
}

// Each algorithm's losses are shown: SAC, TD3 and DDPG's showed none.
TEST(ConsoleReporterTest, ShowsTheLossesOfEveryAlgorithm) {
  const auto shown = [](const std::initializer_list<const char*>& names) {
    Reporter r(1000);
    for (const char* name : names) r.console.scalar(10, name, 0.5);
    return r.console.line(10);
  };
  const std::string ppo =
      shown({"losses/policy_loss", "losses/value_loss", "losses/entropy", "losses/approx_kl"});
  EXPECT_TRUE(holds(ppo, "| pg 0.5 v 0.5 ent 0.5")) << ppo;
  EXPECT_TRUE(holds(shown({"losses/td_loss", "losses/q_values"}), "| td 0.5"));
  const std::string sac = shown({"losses/qf1_loss", "losses/qf_loss", "losses/actor_loss"});
  EXPECT_TRUE(holds(sac, "| qf 0.5 actor 0.5")) << sac;
  const std::string ddpg = shown({"losses/qf1_loss", "losses/actor_loss"});
  EXPECT_TRUE(holds(ddpg, "| qf 0.5 actor 0.5")) << ddpg;
}

}  // namespace
}  // namespace mnrl::experiments
