// BipedalWalker-v3 and BipedalWalkerHardcore-v3 on Box2D, checked as a physicist would: free
// fall between the start's bounce and the landing, a walker without torque collapsing onto its
// hull (-100), lidar rays measuring the distance to flat ground, feet pushed back moving the
// walker forward, the reward's terms, the hardcore obstacles, the env checker, and state
// save/restore bit for bit.
#include "envs/box2d/bipedal_walker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/kwargs.h"
#include "core/rng.h"
#include "core/state_stream.h"
#include "envs/env_checker.h"
#include "envs/registry.h"
#include "registered_env_checks.h"

namespace mnrl::envs {
namespace {

using Observation = std::array<float, 24>;
using Action = std::array<float, 4>;

// Gymnasium's constants, as the tests need them.
constexpr double kPi = 3.141592653589793;
constexpr double kFps = 50;
constexpr double kScale = 30.0;
constexpr double kGravity = -10.0;
constexpr double kVelocityYScale = 0.3 * (400.0 / kScale) / kFps;  // observation[3] per m/s
constexpr double kTerrainHeight = 400.0 / kScale / 4;              // the start pad's height
constexpr int kStartPadPoints = 21;                                // flat points 0..20
constexpr double kTerrainStep = 14.0 / kScale;
constexpr double kLidarRange = 160.0 / kScale;
constexpr double kTorqueCost = 0.00035 * 80;  // per joint at full torque
constexpr std::array<const char*, 2> kIds = {"BipedalWalker-v3", "BipedalWalkerHardcore-v3"};

// Indices in the observation.
constexpr int kHullAngle = 0;
constexpr int kHullAngularVelocity = 1;
constexpr int kVelocityX = 2;
constexpr int kVelocityY = 3;
constexpr std::array<int, 2> kFootContact = {8, 13};
constexpr int kFirstLidar = 14;

std::unique_ptr<Env> make(const std::string& id) { return Registry::global().make(id); }

StepResult step(Env& env, const Action& action, Observation& s) {
  return env.step(ActionRef{0, action.data(), 4}, s.data());
}

bool airborne(const Observation& s) { return s[kFootContact[0]] == 0 && s[kFootContact[1]] == 0; }

TEST(BipedalWalker, SpecsAreGymnasiums) {
  for (const char* id : kIds) {
    const auto env = make(id);
    const EnvSpec& spec = env->spec();
    EXPECT_EQ(spec.action_space, Space(Box{{4}, {-1, -1, -1, -1}, {1, 1, 1, 1}})) << id;
    const Box& observation = std::get<Box>(spec.observation_space);
    ASSERT_EQ(observation.shape, std::vector<std::int64_t>{24}) << id;
    const float pi = static_cast<float>(kPi);
    // Gymnasium's +-pi for the hull angle is widened to +-2 pi: the angle is not wrapped, and a
    // walker toppling over turns its hull past pi before the hull lands.
    EXPECT_EQ(observation.low[kHullAngle], static_cast<float>(-2 * kPi)) << id;
    EXPECT_EQ(observation.high[kHullAngle], static_cast<float>(2 * kPi)) << id;
    for (int speed : {1, 2, 3, 5, 7, 10, 12}) {
      EXPECT_EQ(observation.low[speed], -5.0f) << id;
      EXPECT_EQ(observation.high[speed], 5.0f) << id;
    }
    for (int joint_angle : {4, 6, 9, 11}) {
      EXPECT_EQ(observation.low[joint_angle], -pi) << id;
      EXPECT_EQ(observation.high[joint_angle], pi) << id;
    }
    for (int contact : kFootContact) {
      EXPECT_EQ(observation.low[contact], 0.0f) << id;
      EXPECT_EQ(observation.high[contact], 5.0f) << id;
    }
    for (int ray = 0; ray < 10; ++ray) {
      EXPECT_EQ(observation.low[kFirstLidar + ray], -1.0f) << id;
      EXPECT_EQ(observation.high[kFirstLidar + ray], 1.0f) << id;
    }
    EXPECT_EQ(spec.reward_threshold, 300.0) << id;
  }
  EXPECT_EQ(make("BipedalWalker-v3")->spec().max_episode_steps, 1600);
  EXPECT_EQ(make("BipedalWalkerHardcore-v3")->spec().max_episode_steps, 2000);
}

TEST(BipedalWalker, TakesNoKwargs) {
  core::Kwargs kwargs;
  kwargs.set("hardcore", true);
  EXPECT_THROW(Registry::global().make("BipedalWalker-v3", kwargs), core::KwargError);
}

TEST(BipedalWalker, PassesTheEnvChecker) {
  for (const char* id : kIds) test_envs::expect_checker_passes(id, 3000);
}

// Gymnasium builds the walker with its legs 16/30 m above where the hips hold them: the hip
// joints pull them down in the first step and the feet kick the walker off the ground. With the
// motors off, while neither foot touches, the hull falls freely: its vertical speed grows by
// g dt per step, its horizontal speed stays (up to the small impulses the free joints still
// pass between the parts).
TEST(BipedalWalker, FallsFreelyWhileNeitherFootTouches) {
  const Action off{};
  int free_steps = 0;
  for (const char* id : kIds) {
    for (std::uint64_t seed = 0; seed < 5; ++seed) {
      auto env = make(id);
      Observation previous{}, s{};
      env->reset(previous.data(), seed);
      for (int t = 0; t < 30; ++t) {
        step(*env, off, s);
        if (airborne(previous) && airborne(s)) {
          EXPECT_NEAR(s[kVelocityY] - previous[kVelocityY], kGravity / kFps * kVelocityYScale, 5e-5)
              << id << " seed " << seed << " step " << t;
          EXPECT_NEAR(s[kVelocityX], previous[kVelocityX], 5e-5) << id << " step " << t;
          ++free_steps;
        }
        previous = s;
      }
    }
  }
  EXPECT_GE(free_steps, 10);
}

// With the motors off nothing holds the knees: the walker folds, the hull comes down onto the
// ground, and that ends the episode with -100. Over the flat start pad the lidar's first ray,
// straight down, reads the hull's height above the pad all the way down.
TEST(BipedalWalker, WithoutTorqueItCollapsesOntoItsHull) {
  for (const char* id : kIds) {
    BipedalWalker env(std::string(id) == "BipedalWalkerHardcore-v3");
    Observation s{};
    env.reset(s.data(), 2);
    const double start_height = env.hull_position()[1] - kTerrainHeight;
    StepResult last;
    int steps = 0;
    for (; steps < 300 && !last.terminated; ++steps) {
      last = step(env, Action{}, s);
      const std::array<double, 2> hull = env.hull_position();
      ASSERT_LT(hull[0], kTerrainStep * (kStartPadPoints - 1)) << id;  // still over the pad
      EXPECT_NEAR(s[kFirstLidar], (hull[1] - kTerrainHeight) / kLidarRange, 1e-5) << id;
      if (!last.terminated) {
        EXPECT_GT(last.reward, -1.0) << id << " step " << steps;
      }
    }
    ASSERT_TRUE(last.terminated) << id;
    EXPECT_EQ(last.reward, -100.0) << id;
    EXPECT_GT(steps, 50) << id;  // it folds, it does not drop
    EXPECT_LT(env.hull_position()[1] - kTerrainHeight, 0.5 * start_height) << id;
    EXPECT_THROW(step(env, Action{}, s), std::logic_error) << id;
  }
}

// Rays fan out from the hull, 0.15 rad apart from straight down; over flat ground at height H a
// ray at angle a meets it after (y - H) / cos(a), as a fraction of the range (1: nothing).
TEST(BipedalWalker, LidarMeasuresTheDistanceToFlatGround) {
  for (const char* id : kIds) {
    BipedalWalker env(std::string(id) == "BipedalWalkerHardcore-v3");
    for (std::uint64_t seed = 0; seed < 5; ++seed) {
      Observation s{};
      env.reset(s.data(), seed);
      const double height = env.hull_position()[1] - kTerrainHeight;
      for (int ray = 0; ray < 7; ++ray) {  // these meet the start pad
        const double expected = std::min(1.0, height / std::cos(0.15 * ray) / kLidarRange);
        EXPECT_NEAR(s[kFirstLidar + ray], expected, 1e-5) << id << " ray " << ray;
      }
      for (int ray = 1; ray < 10; ++ray) {  // the more slanted, the further
        EXPECT_GE(s[kFirstLidar + ray], s[kFirstLidar + ray - 1]) << id << " ray " << ray;
      }
    }
  }
}

TEST(BipedalWalker, LidarFractionsStayInZeroOne) {
  for (const char* id : kIds) {
    auto env = make(id);
    core::Rng actions(3);
    Observation s{};
    env->reset(s.data(), 3);
    for (int t = 0; t < 3000; ++t) {
      Action a;
      for (float& value : a) value = static_cast<float>(actions.uniform(-1, 1));
      const StepResult r = step(*env, a, s);
      for (int ray = 0; ray < 10; ++ray) {
        ASSERT_GE(s[kFirstLidar + ray], 0.0f) << id;
        ASSERT_LE(s[kFirstLidar + ray], 1.0f) << id;
      }
      if (r.terminated || r.truncated) env->reset(s.data(), std::nullopt);
    }
  }
}

// Feet planted on the ground (friction 2.5) and hips driven backwards push the walker forward;
// hips driven forwards push it back.
TEST(BipedalWalker, FeetPushedBackMoveItForward) {
  const Action feet_back = {-1, 1, -1, 1};  // hips backwards, knees straightening
  const Action feet_forward = {1, 1, 1, 1};
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    std::array<double, 2> moved{};
    for (int push = 0; push < 2; ++push) {
      BipedalWalker env;
      Observation s{};
      env.reset(s.data(), seed);
      const double start = env.hull_position()[0];
      for (int t = 0; t < 40; ++t) {
        ASSERT_FALSE(step(env, push == 0 ? feet_back : feet_forward, s).terminated);
      }
      moved[push] = env.hull_position()[0] - start;
    }
    EXPECT_GT(moved[0], 0.3) << "seed " << seed;
    EXPECT_LT(moved[1], -0.3) << "seed " << seed;
  }
}

// The reward is a difference of shaping, 130 x / SCALE - 5 |hull angle|, less 0.028 per joint
// times |action| clipped to 1: over a run it sums to the change of shaping less the torque paid.
TEST(BipedalWalker, RewardIsProgressLessTiltLessTorque) {
  const Action action = {-1.0f, 0.5f, -0.25f, 3.0f};  // the 3 pays as a 1
  const double torque_paid = kTorqueCost * (1.0 + 0.5 + 0.25 + 1.0);
  BipedalWalker env;
  Observation s{};
  env.reset(s.data(), 4);
  const auto shaping = [&env](const Observation& o) {
    return 130 * env.hull_position()[0] / kScale - 5 * std::abs(static_cast<double>(o[kHullAngle]));
  };
  const double start = shaping(s);
  double total = 0;
  int t = 0;
  for (; t < 25; ++t) {
    const StepResult r = step(env, action, s);
    ASSERT_FALSE(r.terminated);
    total += r.reward;
  }
  EXPECT_NEAR(total, shaping(s) - start - t * torque_paid, 1e-9);
}

// Actions beyond [-1, 1] act as their clipped values: the sign sets the motor's direction, the
// magnitude (at most 1) its torque.
TEST(BipedalWalker, ActionsBeyondTheBoxActAsClipped) {
  BipedalWalker clipped, beyond;
  Observation a{}, b{};
  clipped.reset(a.data(), 5);
  beyond.reset(b.data(), 5);
  for (int t = 0; t < 50; ++t) {
    const StepResult ra = step(clipped, {1, -1, 1, -0.5f}, a);
    const StepResult rb = step(beyond, {4, -2, 1.5f, -0.5f}, b);
    ASSERT_EQ(0, std::memcmp(a.data(), b.data(), sizeof(a))) << "step " << t;
    ASSERT_EQ(ra.reward, rb.reward) << "step " << t;
    if (ra.terminated) break;
  }
}

// Normal terrain is gentle grass; hardcore terrain has stumps, stairs and pits (a pit's floor is
// 4 terrain steps down). Both start with the same flat pad.
TEST(BipedalWalker, HardcoreTerrainHasStumpsStairsAndPits) {
  BipedalWalker normal(false), hardcore(true);
  BipedalWalker::Obstacles seen;
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    Observation s{};
    normal.reset(s.data(), seed);
    hardcore.reset(s.data(), seed);
    const std::vector<double> gentle = normal.terrain_heights();
    const std::vector<double> rough = hardcore.terrain_heights();
    ASSERT_EQ(gentle.size(), 200u);
    ASSERT_EQ(rough.size(), 200u);
    for (int i = 0; i < kStartPadPoints; ++i) {
      EXPECT_EQ(gentle[i], kTerrainHeight);
      EXPECT_EQ(rough[i], kTerrainHeight);
    }
    EXPECT_NE(gentle, rough) << "seed " << seed;

    const BipedalWalker::Obstacles none = normal.obstacles();
    EXPECT_EQ(none.stumps + none.stair_steps + none.pits, 0) << "seed " << seed;
    double steepest = 0;  // the grass's damped slope stays under 0.0433 / (1 - 0.8) per step
    for (std::size_t i = 1; i < gentle.size(); ++i) {
      steepest = std::max(steepest, std::abs(gentle[i] - gentle[i - 1]));
    }
    EXPECT_LT(steepest, 0.25) << "seed " << seed;

    const BipedalWalker::Obstacles obstacles = hardcore.obstacles();
    EXPECT_GT(obstacles.stumps + obstacles.stair_steps + obstacles.pits, 3) << "seed " << seed;
    if (obstacles.pits > 0) {
      double deepest_drop = 0;
      for (std::size_t i = 1; i < rough.size(); ++i) {
        deepest_drop = std::max(deepest_drop, rough[i - 1] - rough[i]);
      }
      EXPECT_NEAR(deepest_drop, 4 * kTerrainStep, 1e-9) << "seed " << seed;
    }
    seen.stumps += obstacles.stumps;
    seen.stair_steps += obstacles.stair_steps;
    seen.pits += obstacles.pits;
  }
  EXPECT_GT(seen.stumps, 0);
  EXPECT_GT(seen.stair_steps, 0);
  EXPECT_GT(seen.pits, 0);
}

// A walking gait written for these tests, a state machine over the legs: the stance leg holds
// the hull up while the other swings forward folded (lift) until the stance leg is under the
// hull, reaches down (place) until its foot touches, and the stance knee straightens to push
// off (push) before the legs swap. Both hips also keep the hull level, and the knees damp its
// vertical motion. Angles are the joints' (the knee's is observation - 1).
class Gait {
 public:
  Action operator()(const Observation& s) {
    const int stance = stance_;
    const int swing = 1 - stance;
    std::array<std::optional<double>, 2> hip_target;
    std::array<std::optional<double>, 2> knee_target;
    if (phase_ == Phase::kLift) {
      hip_target[swing] = 1.0;
      knee_target[swing] = kFolded;
      knee_target[stance] = kSupport;
      if (hip(s, stance) < 0.1) phase_ = Phase::kPlace;
    }
    if (phase_ == Phase::kPlace) {
      hip_target[swing] = 0.0;
      knee_target[swing] = kSupport;
      knee_target[stance] = kSupport;
      if (s[kFootContact[swing]] > 0) phase_ = Phase::kPush;
    }
    if (phase_ == Phase::kPush) {
      knee_target[swing] = kSupport;
      knee_target[stance] = kStraight;
      if (knee(s, stance) > -0.2 || s[kVelocityX] > kTopSpeed) {
        phase_ = Phase::kLift;
        stance_ = swing;
      }
    }
    Action action{};
    for (int leg = 0; leg < 2; ++leg) {
      double hip_torque = 1.0 * s[kHullAngle] + 1.25 * s[kHullAngularVelocity];
      if (hip_target[leg])
        hip_torque += 1.0 * (*hip_target[leg] - hip(s, leg)) - 0.25 * s[5 + 5 * leg];
      double knee_torque = -20.0 * s[kVelocityY];
      if (knee_target[leg])
        knee_torque += 5.0 * (*knee_target[leg] - knee(s, leg)) - 0.25 * s[7 + 5 * leg];
      action[2 * leg] = static_cast<float>(std::clamp(0.5 * hip_torque, -1.0, 1.0));
      action[2 * leg + 1] = static_cast<float>(std::clamp(0.5 * knee_torque, -1.0, 1.0));
    }
    return action;
  }

 private:
  enum class Phase { kLift, kPlace, kPush };
  static constexpr double kFolded = -1.4;
  static constexpr double kSupport = -0.95;
  static constexpr double kStraight = -0.1;
  static constexpr double kTopSpeed = 0.3;  // observation[2]: 2.5 m/s

  static double hip(const Observation& s, int leg) { return s[4 + 5 * leg]; }
  static double knee(const Observation& s, int leg) { return s[6 + 5 * leg] - 1.0; }

  Phase phase_ = Phase::kLift;
  int stance_ = 0;
};

// Walking to the far end (10 terrain steps before the last point) ends the episode without a
// penalty, and the shaping makes the whole walk worth about 300, Gymnasium's threshold.
TEST(BipedalWalker, AWalkingGaitReachesTheEndOfTheTerrain) {
  constexpr double kEnd = (200 - 10) * kTerrainStep;
  int reached = 0;
  std::string outcomes;
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    BipedalWalker env;  // no time limit
    Observation s{};
    env.reset(s.data(), seed);
    Gait gait;
    double total = 0;
    StepResult last;
    for (int t = 0; t < 2000 && !last.terminated; ++t) {
      last = step(env, gait(s), s);
      total += last.reward;
    }
    const double x = env.hull_position()[0];
    outcomes += " x=" + std::to_string(x) + " return=" + std::to_string(total);
    if (!last.terminated || last.reward == -100.0) continue;
    ++reached;
    EXPECT_GT(x, kEnd) << "seed " << seed;
    EXPECT_GT(last.reward, -1.0) << "seed " << seed;
    EXPECT_GT(total, 300.0) << "seed " << seed;
  }
  EXPECT_GE(reached, 8) << outcomes;
}

// Saved mid-episode and loaded into a fresh env, the rest of the run is the same bits,
// including the episodes that follow (random episodes last about 560 steps).
TEST(BipedalWalker, SavedStateResumesBitForBit) {
  for (const char* id : kIds) test_envs::expect_resumes_bit_for_bit(id, 21, 37, {}, 1500);
}

// BipedalWalker's saved state, field by field, to corrupt one at a time.
struct SavedWalker {
  std::string id;
  bool started = false;
  core::Rng::State start{};
  std::vector<float> actions;
  core::Rng::State current{};
  EpisodePhase phase;

  static SavedWalker read(const BipedalWalker& env) {
    core::StateWriter out;
    env.save_state(out);
    core::StateReader in(out.bytes(), "test");
    SavedWalker saved;
    saved.id = env.spec().id;
    in.expect_tag(saved.id);
    in.value(saved.started);
    in.values(saved.start);
    saved.actions.resize(in.value<std::uint64_t>());
    in.values(saved.actions);
    in.values(saved.current);
    in.value(saved.phase);
    in.expect_end();
    return saved;
  }

  std::string bytes() const {
    core::StateWriter out;
    out.tag(id);
    out.value(started);
    out.values(start);
    out.value(static_cast<std::uint64_t>(actions.size()));
    out.values(actions);
    out.values(current);
    out.value(phase);
    return out.bytes();
  }
};

void expect_refused(const SavedWalker& saved, const std::string& what) {
  BipedalWalker env;
  const std::string bytes = saved.bytes();
  core::StateReader in(bytes, "corrupt.state");
  EXPECT_THROW(env.load_state(in), core::StateError) << what;
}

TEST(BipedalWalker, RefusesACorruptSavedState) {
  BipedalWalker env;
  Observation s{};
  env.reset(s.data(), 1);
  for (int t = 0; t < 5; ++t) step(env, {0.5f, -0.5f, 0.25f, 1}, s);
  const SavedWalker good = SavedWalker::read(env);
  {
    BipedalWalker other;
    const std::string bytes = good.bytes();
    core::StateReader in(bytes, "good.state");
    other.load_state(in);  // the rewritten record is accepted as it is
    in.expect_end();
  }

  SavedWalker nan_action = good;
  nan_action.actions[6] = std::nanf("");
  expect_refused(nan_action, "a NaN action");

  SavedWalker partial_action = good;
  partial_action.actions.pop_back();
  expect_refused(partial_action, "an action of 3 floats");

  SavedWalker other_start = good;
  other_start.start[0] ^= 1;  // another terrain: the replay ends at another RNG state
  expect_refused(other_start, "an episode start that does not replay to the saved RNG state");

  SavedWalker hardcore = good;
  hardcore.id = "BipedalWalkerHardcore-v3";
  expect_refused(hardcore, "the state of the other env");
}

// An episode that terminated takes no more actions, so a record that goes on after its
// terminating step is refused.
TEST(BipedalWalker, RefusesActionsAfterTheEpisodeTerminated) {
  BipedalWalker env;
  Observation s{};
  env.reset(s.data(), 1);
  while (!step(env, Action{}, s).terminated) {
  }
  SavedWalker saved = SavedWalker::read(env);
  {
    BipedalWalker other;
    const std::string bytes = saved.bytes();
    core::StateReader in(bytes, "terminated.state");
    other.load_state(in);
  }
  saved.actions.insert(saved.actions.end(), 4, 0.0f);
  expect_refused(saved, "an action after the terminating step");
}

}  // namespace
}  // namespace mnrl::envs
