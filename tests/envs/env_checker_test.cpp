#include "envs/env_checker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/rng.h"
#include "envs/action_check.h"
#include "envs/registry.h"

namespace mnrl::envs {
namespace {

namespace checks = env_checks;

// What a TestEnv gets wrong; each flaw breaks one part of the contract.
enum class Flaw {
  kNone,
  kObservationOutOfBounds,   // observation[2] = 1.5 on step 3, outside [-1, 1]
  kNanReward,                // reward NaN on step 4
  kWritesPastEnd,            // step() writes one float after the observation
  kWritesTooLittle,          // step() leaves the last observation float unwritten
  kStepBeforeResetAccepted,  // no "before reset()" check
  kStepAfterEndAccepted,     // no "after the episode ended" check
  kIgnoresSeed,              // reset(seed) does not reseed
  kSharedState,              // one RNG for all instances
  kIgnoresTimeLimit,         // runs past max_episode_steps (ends at step 25)
  kTerminatesAtLimit,        // ends at the limit with terminated but not truncated
  kAcceptsOutOfRangeAction,  // clamps the index instead of refusing it
  kAcceptsNanAction,         // Box actions: NaN values are not refused
  kThrowsInStep,             // std::runtime_error on its 30th step
};

// A small random walk: x moves by (action - 1) / 10 plus noise and the episode terminates when
// |x| > 0.5; the env applies its own time limit of 10 steps (truncated). Observation
// [x, steps / 50, last action / 2] in [-1, 1]^3; actions Discrete(3), or a Box of 2 in [-1, 1]
// (x moves by values[0] / 10).
class TestEnv final : public Env {
 public:
  static constexpr int kLimit = 10;

  explicit TestEnv(Flaw flaw = Flaw::kNone, bool box_actions = false)
      : flaw_(flaw), box_actions_(box_actions) {
    spec_.id = "Test-v0";
    spec_.observation_space = Box{{3}, {-1, -1, -1}, {1, 1, 1}};
    spec_.action_space = box_actions ? Space(Box{{2}, {-1, -1}, {1, 1}}) : Space(Discrete{3});
    spec_.max_episode_steps = kLimit;
  }

  const EnvSpec& spec() const override { return spec_; }

  void reset(core::TypedPtr out, std::optional<std::uint64_t> seed) override {
    float* observation = out.floats();
    if (seed && flaw_ != Flaw::kIgnoresSeed) rng().reseed(*seed);
    x_ = rng().uniform(-0.1, 0.1);
    steps_ = 0;
    last_action_ = 0;
    phase_ = Phase::kRunning;
    write(observation, 3);
  }

  StepResult step(const ActionRef& action, core::TypedPtr out) override {
    float* observation = out.floats();
    if (phase_ == Phase::kNeedsReset && flaw_ != Flaw::kStepBeforeResetAccepted) {
      throw std::logic_error("Test-v0: step() before reset()");
    }
    if (phase_ == Phase::kEnded && flaw_ != Flaw::kStepAfterEndAccepted) {
      throw std::logic_error("Test-v0: step() after the episode ended");
    }
    double move;
    if (box_actions_) {
      if (flaw_ == Flaw::kAcceptsNanAction) {
        if (action.size != 2) check_action(spec_, action);
      } else {
        check_action(spec_, action);
      }
      move = action.values[0] / 10.0;
      last_action_ = action.values[0];
    } else {
      if (flaw_ != Flaw::kAcceptsOutOfRangeAction) check_action(spec_, action);
      const std::int64_t index = std::clamp<std::int64_t>(action.index, 0, 2);
      move = static_cast<double>(index - 1) / 10.0;
      last_action_ = static_cast<double>(index - 1);
    }
    if (flaw_ == Flaw::kThrowsInStep && ++lifetime_steps_ == 30) {
      throw std::runtime_error("sensor disconnected");
    }
    ++steps_;
    x_ += move + rng().uniform(-0.05, 0.05);
    StepResult result{1.0, std::abs(x_) > 0.5, false};
    if (flaw_ == Flaw::kIgnoresTimeLimit) {
      result.terminated = result.terminated || steps_ >= 25;
    } else if (steps_ >= kLimit) {
      (flaw_ == Flaw::kTerminatesAtLimit ? result.terminated : result.truncated) = true;
    }
    if (flaw_ == Flaw::kNanReward && steps_ == 4) {
      result.reward = std::numeric_limits<double>::quiet_NaN();
    }
    phase_ = result.terminated || result.truncated ? Phase::kEnded : Phase::kRunning;
    write(observation, flaw_ == Flaw::kWritesTooLittle ? 2 : flaw_ == Flaw::kWritesPastEnd ? 4 : 3);
    if (flaw_ == Flaw::kObservationOutOfBounds && steps_ == 3) observation[2] = 1.5f;
    return result;
  }

 private:
  enum class Phase { kNeedsReset, kRunning, kEnded };

  core::Rng& rng() {
    static core::Rng shared;
    return flaw_ == Flaw::kSharedState ? shared : rng_;
  }

  void write(float* observation, int count) const {
    const float values[4] = {static_cast<float>(x_), static_cast<float>(steps_) / 50.0f,
                             static_cast<float>(last_action_ / 2.0), 0.0f};
    for (int i = 0; i < count; ++i) observation[i] = values[i];
  }

  EnvSpec spec_;
  Flaw flaw_;
  bool box_actions_;
  core::Rng rng_;
  double x_ = 0.0;
  double last_action_ = 0.0;
  int steps_ = 0;
  int lifetime_steps_ = 0;
  Phase phase_ = Phase::kNeedsReset;
};

EnvMaker factory(Flaw flaw, bool box_actions = false) {
  return [flaw, box_actions] { return std::make_unique<TestEnv>(flaw, box_actions); };
}

// The report as text, for failure messages.
std::string to_string(const EnvCheckReport& report) {
  std::string out = report.env_id + ":\n";
  for (const auto& r : report.results) {
    const char* status = r.status == EnvCheckStatus::kPassed   ? "PASS"
                         : r.status == EnvCheckStatus::kFailed ? "FAIL"
                                                               : "SKIP";
    out += std::string("  ") + status + "  " + r.check + ": " + r.detail + "\n";
  }
  return out;
}

std::vector<std::string> failed_checks(const EnvCheckReport& report) {
  std::vector<std::string> out;
  for (const auto& r : report.results) {
    if (r.failed()) out.push_back(r.check);
  }
  return out;
}

const std::vector<std::string> kAllChecks = {checks::kSpec,
                                             checks::kStepBeforeReset,
                                             checks::kNoErrors,
                                             checks::kObservationWrites,
                                             checks::kObservationsInSpace,
                                             checks::kFiniteRewards,
                                             checks::kTimeLimit,
                                             checks::kStepAfterEnd,
                                             checks::kDeterminism,
                                             checks::kSavedState,
                                             checks::kInvalidActions};

// Every registered env, as training builds it, keeps the contract. Loops over the registry, so
// envs added later are covered too.
TEST(EnvCheckerTest, EveryRegisteredEnvPasses) {
  const auto ids = Registry::global().ids();
  ASSERT_FALSE(ids.empty());
  for (const auto& id : ids) {
    EnvCheckOptions options;
    options.steps = 2000;
    options.seed = 3;
    const EnvCheckReport report = check_registered_env(id, options);
    EXPECT_EQ(report.env_id, id);
    EXPECT_TRUE(report.passed()) << to_string(report);
    EXPECT_EQ(report.results.size(), kAllChecks.size()) << to_string(report);
  }
}

TEST(EnvCheckerTest, CorrectEnvPassesEveryCheckInOrder) {
  for (const bool box_actions : {false, true}) {
    const EnvCheckReport report = check_env(factory(Flaw::kNone, box_actions));
    EXPECT_TRUE(report.passed()) << to_string(report);
    EXPECT_EQ(report.env_id, "Test-v0");
    std::vector<std::string> names;
    for (const auto& r : report.results) {
      names.push_back(r.check);
      EXPECT_EQ(r.status, EnvCheckStatus::kPassed) << to_string(report);
    }
    EXPECT_EQ(names, kAllChecks);
  }
}

TEST(EnvCheckerTest, UnknownRegisteredIdThrowsWithSuggestion) {
  try {
    check_registered_env("CartPol-v1");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'CartPole-v1'"), std::string::npos)
        << e.what();
  }
}

TEST(EnvCheckerTest, StepsBelowOneThrow) {
  EnvCheckOptions options;
  options.steps = 0;
  EXPECT_THROW(check_env(factory(Flaw::kNone), options), std::invalid_argument);
}

// Each broken env fails exactly the check it breaks, with a message that says what is wrong.
struct BrokenCase {
  const char* name;
  Flaw flaw;
  bool box_actions;
  const char* failed_check;
  std::vector<const char*> fragments;
};

void PrintTo(const BrokenCase& c, std::ostream* out) { *out << c.name; }

class BrokenEnvTest : public ::testing::TestWithParam<BrokenCase> {};

TEST_P(BrokenEnvTest, FailsExactlyTheBrokenCheck) {
  const BrokenCase& c = GetParam();
  const EnvCheckReport report = check_env(factory(c.flaw, c.box_actions));
  EXPECT_FALSE(report.passed());
  EXPECT_EQ(failed_checks(report), std::vector<std::string>{c.failed_check}) << to_string(report);
  const EnvCheckResult* result = report.find(c.failed_check);
  ASSERT_NE(result, nullptr);
  for (const char* fragment : c.fragments) {
    EXPECT_NE(result->detail.find(fragment), std::string::npos)
        << "missing '" << fragment << "' in: " << result->detail;
  }
  // Only an error that stops the rollout may leave other checks unfinished.
  if (c.flaw != Flaw::kThrowsInStep) {
    for (const auto& r : report.results) {
      EXPECT_NE(r.status, EnvCheckStatus::kSkipped) << to_string(report);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Flaws, BrokenEnvTest,
    ::testing::Values(
        BrokenCase{"ObservationOutOfBounds",
                   Flaw::kObservationOutOfBounds,
                   false,
                   checks::kObservationsInSpace,
                   {"episode 1, step 3: observation[2] = 1.5 is outside [-1, 1]"}},
        BrokenCase{"NanReward",
                   Flaw::kNanReward,
                   false,
                   checks::kFiniteRewards,
                   {"episode 1, step 4: reward = nan"}},
        BrokenCase{"WritesPastEnd",
                   Flaw::kWritesPastEnd,
                   false,
                   checks::kObservationWrites,
                   {"episode 1, step 1: wrote past the end of the observation (3 elements)",
                    "element 3 was overwritten"}},
        BrokenCase{
            "WritesTooLittle",
            Flaw::kWritesTooLittle,
            false,
            checks::kObservationWrites,
            {"episode 1, step 1: 1 of 3 observation elements not written (first: element 2)"}},
        BrokenCase{"StepBeforeResetAccepted",
                   Flaw::kStepBeforeResetAccepted,
                   false,
                   checks::kStepBeforeReset,
                   {"step() on a fresh env returned normally", "std::logic_error"}},
        BrokenCase{"StepAfterEndAccepted",
                   Flaw::kStepAfterEndAccepted,
                   false,
                   checks::kStepAfterEnd,
                   {"the episode, then step() without reset() returned normally"}},
        BrokenCase{"IgnoresSeed",
                   Flaw::kIgnoresSeed,
                   false,
                   checks::kDeterminism,
                   {"after reset(seed = 0) on a used env", "differs from the first run"}},
        BrokenCase{"SharedStateBetweenInstances",
                   Flaw::kSharedState,
                   false,
                   checks::kDeterminism,
                   {"two fresh envs given the same seed and actions differ",
                    "episode 1, step 1: observation[0]"}},
        BrokenCase{"IgnoresTimeLimit",
                   Flaw::kIgnoresTimeLimit,
                   false,
                   checks::kTimeLimit,
                   {"past max_episode_steps = 10 (step 10 did not report truncated)"}},
        BrokenCase{
            "TerminatesAtLimitWithoutTruncated",
            Flaw::kTerminatesAtLimit,
            false,
            checks::kTimeLimit,
            {"step 10: the episode ended at max_episode_steps = 10", "must report truncated"}},
        BrokenCase{"AcceptsOutOfRangeAction",
                   Flaw::kAcceptsOutOfRangeAction,
                   false,
                   checks::kInvalidActions,
                   {"invalid action (index 3) was accepted", "invalid action (index -1)",
                    "std::invalid_argument"}},
        BrokenCase{"AcceptsNanAction",
                   Flaw::kAcceptsNanAction,
                   true,
                   checks::kInvalidActions,
                   {"invalid action (a NaN value) was accepted"}},
        BrokenCase{"ThrowsInStep",
                   Flaw::kThrowsInStep,
                   false,
                   checks::kNoErrors,
                   {"step() threw std::runtime_error: sensor disconnected"}}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(EnvCheckerTest, ErrorInStepLeavesRolloutChecksUnfinishedNotFailed) {
  const EnvCheckReport report = check_env(factory(Flaw::kThrowsInStep));
  for (const char* check : {checks::kObservationsInSpace, checks::kFiniteRewards}) {
    const EnvCheckResult* r = report.find(check);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->status, EnvCheckStatus::kSkipped) << to_string(report);
    EXPECT_NE(r->detail.find("not fully checked"), std::string::npos) << r->detail;
  }
}

// A second, overlapping flaw: both are reported; one check does not hide another.
class TwoFlawsEnv final : public Env {
 public:
  const EnvSpec& spec() const override { return env_.spec(); }
  void reset(core::TypedPtr out, std::optional<std::uint64_t> seed) override {
    float* observation = out.floats();
    env_.reset(observation, seed);
  }
  StepResult step(const ActionRef& action, core::TypedPtr out) override {
    float* observation = out.floats();
    StepResult r = env_.step(action, observation);
    r.reward = std::numeric_limits<double>::infinity();
    return r;
  }

 private:
  TestEnv env_{Flaw::kObservationOutOfBounds};
};

TEST(EnvCheckerTest, ReportsEveryViolatedCheck) {
  const EnvCheckReport report = check_env([] { return std::make_unique<TwoFlawsEnv>(); });
  EXPECT_EQ(failed_checks(report),
            (std::vector<std::string>{checks::kObservationsInSpace, checks::kFiniteRewards}))
      << to_string(report);
  // Every step's reward is infinite: a few are quoted, all are counted.
  const std::string& detail = report.find(checks::kFiniteRewards)->detail;
  EXPECT_NE(detail.find("reward = inf"), std::string::npos) << detail;
  EXPECT_NE(detail.find("(1000 violations in all)"), std::string::npos) << detail;
}

TEST(EnvCheckerTest, FactoryProblemsFailTheSpecCheckOnly) {
  const EnvCheckReport throws =
      check_env([]() -> std::unique_ptr<Env> { throw std::runtime_error("no display"); });
  ASSERT_EQ(throws.results.size(), 1u) << to_string(throws);
  EXPECT_TRUE(throws.results[0].failed());
  EXPECT_NE(throws.results[0].detail.find("building the env threw std::runtime_error: no display"),
            std::string::npos)
      << to_string(throws);
  EXPECT_NE(throws.results[0].detail.find("other checks need a valid spec"), std::string::npos);

  const EnvCheckReport null = check_env([] { return std::unique_ptr<Env>(); });
  ASSERT_EQ(null.results.size(), 1u);
  EXPECT_NE(null.results[0].detail.find("null"), std::string::npos) << to_string(null);
}

// The checks size their buffers from the first env's spec; later envs must match it.
TEST(EnvCheckerTest, FactoryThatChangesSpacesFailsTheLaterChecks) {
  int built = 0;
  const EnvCheckReport report = check_env(
      [&built] { return std::make_unique<TestEnv>(Flaw::kNone, /*box_actions=*/built++ > 0); });
  EXPECT_FALSE(report.passed());
  for (const auto& r : report.results) {
    if (r.check == checks::kSpec) continue;
    EXPECT_TRUE(r.failed() || r.status == EnvCheckStatus::kSkipped) << to_string(report);
  }
  EXPECT_NE(report.find(checks::kDeterminism)
                ->detail.find("another env from the same factory has the action space Box(2)"),
            std::string::npos)
      << to_string(report);
}

// Discrete(4) observations: the step count, or (broken) 4 on the fourth step.
class CounterEnv final : public Env {
 public:
  explicit CounterEnv(bool broken) : broken_(broken) {
    spec_.id = "Counter-v0";
    spec_.observation_space = Discrete{4};
    spec_.action_space = Discrete{2};
  }
  const EnvSpec& spec() const override { return spec_; }
  void reset(core::TypedPtr out, std::optional<std::uint64_t>) override {
    float* observation = out.floats();
    steps_ = 0;
    ended_ = false;
    observation[0] = 0;
  }
  StepResult step(const ActionRef& action, core::TypedPtr out) override {
    float* observation = out.floats();
    if (steps_ < 0 || ended_) throw std::logic_error("Counter-v0: call reset() first");
    check_action(spec_, action);
    ++steps_;
    ended_ = steps_ == (broken_ ? 4 : 3);
    observation[0] = static_cast<float>(steps_);
    return {0.0, ended_, false};
  }

 private:
  EnvSpec spec_;
  bool broken_;
  int steps_ = -1;
  bool ended_ = false;
};

TEST(EnvCheckerTest, DiscreteObservationsMustBeIndicesInRange) {
  const EnvCheckReport good = check_env([] { return std::make_unique<CounterEnv>(false); });
  EXPECT_TRUE(good.passed()) << to_string(good);
  const EnvCheckReport broken = check_env([] { return std::make_unique<CounterEnv>(true); });
  EXPECT_EQ(failed_checks(broken), std::vector<std::string>{checks::kObservationsInSpace})
      << to_string(broken);
  EXPECT_NE(broken.find(checks::kObservationsInSpace)
                ->detail.find("episode 1, step 4: observation = 4 is not an integer in [0, 4)"),
            std::string::npos)
      << to_string(broken);
}

class BadSpecEnv final : public Env {
 public:
  BadSpecEnv() {
    spec_.id = "BadSpec-v0";
    spec_.observation_space = Box{{2}, {0, 1}, {1, 0}};
    spec_.action_space = Discrete{2};
  }
  const EnvSpec& spec() const override { return spec_; }
  void reset(core::TypedPtr, std::optional<std::uint64_t>) override {}
  StepResult step(const ActionRef&, core::TypedPtr) override { return {}; }

 private:
  EnvSpec spec_;
};

TEST(EnvCheckerTest, InvalidSpecIsReported) {
  const EnvCheckReport report = check_env([] { return std::make_unique<BadSpecEnv>(); });
  ASSERT_EQ(report.results.size(), 1u);
  EXPECT_EQ(report.env_id, "BadSpec-v0");
  EXPECT_EQ(report.results[0].check, checks::kSpec);
  EXPECT_TRUE(report.results[0].failed());
  EXPECT_NE(report.results[0].detail.find("low 1 > high 0"), std::string::npos)
      << to_string(report);
}

}  // namespace
}  // namespace mnrl::envs
