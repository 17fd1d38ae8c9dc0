#include "replay/n_step.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/rng.h"

namespace mnrl::replay {
namespace {

// Observations and actions are one float each, so a transition is six numbers.
struct Emitted {
  float observation, action, reward, next_observation;
  bool terminated;
  float discount;
};

// One vector-env step, one entry per env.
struct Step {
  std::vector<float> observations, actions, rewards, next_observations;
  std::vector<std::uint8_t> terminated, truncated;
  std::vector<float> final_observations;
};

std::vector<Emitted> run(NStepAccumulator& accumulator, const Step& step) {
  std::vector<Emitted> out;
  accumulator.add(step.observations.data(), step.actions.data(), step.rewards.data(),
                  step.next_observations.data(), step.terminated.data(), step.truncated.data(),
                  step.final_observations.data(), [&out](const Transition& t) {
                    out.push_back({t.observation.floats()[0], t.action[0], t.reward,
                                   t.next_observation.floats()[0], t.terminated, t.discount});
                  });
  return out;
}

// A single-env step: observation s, action 10 + s, reward r, next observation next;
// final observation `final` (meaningful only when the episode ends).
Step one(float s, float r, float next, bool terminated = false, bool truncated = false,
         float final = -1.0f) {
  return {{s}, {10.0f + s}, {r}, {next}, {terminated}, {truncated}, {final}};
}

void expect_emitted(const std::vector<Emitted>& got, const std::vector<Emitted>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE("transition " + std::to_string(i));
    EXPECT_EQ(got[i].observation, expected[i].observation);
    EXPECT_EQ(got[i].action, expected[i].action);
    EXPECT_NEAR(got[i].reward, expected[i].reward, 1e-5);
    EXPECT_EQ(got[i].next_observation, expected[i].next_observation);
    EXPECT_EQ(got[i].terminated, expected[i].terminated);
    EXPECT_NEAR(got[i].discount, expected[i].discount, 1e-6);
  }
}

constexpr float kGamma = 0.9f;

TEST(NStepAccumulatorTest, RejectsBadArguments) {
  EXPECT_THROW(NStepAccumulator(0, 3, kGamma, 1, 1), std::invalid_argument);
  EXPECT_THROW(NStepAccumulator(1, 0, kGamma, 1, 1), std::invalid_argument);
  EXPECT_THROW(NStepAccumulator(1, 3, 1.5f, 1, 1), std::invalid_argument);
  EXPECT_THROW(NStepAccumulator(1, 3, kGamma, 0, 1), std::invalid_argument);
  EXPECT_THROW(NStepAccumulator(1, 3, kGamma, 1, 0), std::invalid_argument);
}

// (a) n = 3, gamma 0.9, rewards 1, 2, 3, 4, 5 and no episode end: each step from the third on
// completes the step two before it, bootstrapping from the observation after the step.
TEST(NStepAccumulatorTest, SumsNRewardsWithoutEpisodeEnd) {
  NStepAccumulator accumulator(1, 3, kGamma, 1, 1);
  expect_emitted(run(accumulator, one(0, 1, 1)), {});
  expect_emitted(run(accumulator, one(1, 2, 2)), {});
  EXPECT_EQ(accumulator.pending(0), 2);
  // 1 + 0.9 * 2 + 0.81 * 3
  expect_emitted(run(accumulator, one(2, 3, 3)), {{0, 10, 5.23f, 3, false, 0.729f}});
  // 2 + 0.9 * 3 + 0.81 * 4
  expect_emitted(run(accumulator, one(3, 4, 4)), {{1, 11, 7.94f, 4, false, 0.729f}});
  // 3 + 0.9 * 4 + 0.81 * 5
  expect_emitted(run(accumulator, one(4, 5, 5)), {{2, 12, 10.65f, 5, false, 0.729f}});
  EXPECT_EQ(accumulator.pending(0), 2);
}

// (b) The episode terminates at its fourth step (final observation 40, reset to 100): the
// three pending steps end there with 3, 2 and 1 rewards and no bootstrap.
TEST(NStepAccumulatorTest, FlushesPendingStepsOnTermination) {
  NStepAccumulator accumulator(1, 3, kGamma, 1, 1);
  run(accumulator, one(0, 1, 1));
  run(accumulator, one(1, 2, 2));
  expect_emitted(run(accumulator, one(2, 3, 3)), {{0, 10, 5.23f, 3, false, 0.729f}});
  expect_emitted(run(accumulator, one(3, 4, 100, /*terminated=*/true, false, /*final=*/40)),
                 {
                     {1, 11, 7.94f, 40, true, 0.729f},  // 2 + 0.9 * 3 + 0.81 * 4
                     {2, 12, 6.6f, 40, true, 0.81f},    // 3 + 0.9 * 4
                     {3, 13, 4.0f, 40, true, 0.9f},     // 4
                 });
  EXPECT_EQ(accumulator.pending(0), 0);
  // The next episode starts afresh from the reset observation.
  expect_emitted(run(accumulator, one(100, 1, 101)), {});
  expect_emitted(run(accumulator, one(101, 1, 102)), {});
  expect_emitted(run(accumulator, one(102, 1, 103)), {{100, 110, 2.71f, 103, false, 0.729f}});
}

// (c) Same episode cut by a time limit: the pending steps bootstrap from the final
// observation (terminated false) with the same partial sums and discounts.
TEST(NStepAccumulatorTest, TruncationBootstrapsFromTheFinalObservation) {
  NStepAccumulator accumulator(1, 3, kGamma, 1, 1);
  run(accumulator, one(0, 1, 1));
  run(accumulator, one(1, 2, 2));
  run(accumulator, one(2, 3, 3));
  expect_emitted(run(accumulator, one(3, 4, 100, false, /*truncated=*/true, /*final=*/40)),
                 {
                     {1, 11, 7.94f, 40, false, 0.729f},
                     {2, 12, 6.6f, 40, false, 0.81f},
                     {3, 13, 4.0f, 40, false, 0.9f},
                 });
  EXPECT_EQ(accumulator.pending(0), 0);
  // Terminated and truncated together: terminated wins.
  expect_emitted(run(accumulator, one(100, 2, 200, true, true, 50)),
                 {{100, 110, 2.0f, 50, true, 0.9f}});
}

// (d) Episodes shorter than n: a two-step episode that terminates, then a one-step episode
// that is truncated.
TEST(NStepAccumulatorTest, FlushesEpisodesShorterThanN) {
  NStepAccumulator accumulator(1, 3, kGamma, 1, 1);
  expect_emitted(run(accumulator, one(0, 1, 1)), {});
  expect_emitted(run(accumulator, one(1, 2, 100, true, false, 2)),
                 {
                     {0, 10, 2.8f, 2, true, 0.81f},  // 1 + 0.9 * 2
                     {1, 11, 2.0f, 2, true, 0.9f},
                 });
  expect_emitted(run(accumulator, one(100, 7, 200, false, true, 101)),
                 {{100, 110, 7.0f, 101, false, 0.9f}});
  EXPECT_EQ(accumulator.pending(0), 0);
}

// (e) Two envs, n = 3: env 0 (observations 0, 1, then 50 after its reset) terminates at step 1
// with final observation 1001; env 1 (observations 100...) is truncated at step 3 with final
// observation 104. Transitions come in env order, oldest first within an env.
TEST(NStepAccumulatorTest, HandlesEnvsEndingAtDifferentSteps) {
  NStepAccumulator accumulator(2, 3, kGamma, 1, 1);
  const auto step = [](float s0, float r0, float n0, float s1, float r1, float n1,
                       std::uint8_t term0, std::uint8_t trunc1, float final0, float final1) {
    return Step{{s0, s1},   {10 + s0, 10 + s1}, {r0, r1},        {n0, n1},
                {term0, 0}, {0, trunc1},        {final0, final1}};
  };
  expect_emitted(run(accumulator, step(0, 1, 1, 100, 10, 101, 0, 0, -1, -1)), {});
  expect_emitted(run(accumulator, step(1, 2, 50, 101, 20, 102, 1, 0, 1001, -1)),
                 {
                     {0, 10, 2.8f, 1001, true, 0.81f},  // 1 + 0.9 * 2
                     {1, 11, 2.0f, 1001, true, 0.9f},
                 });
  EXPECT_EQ(accumulator.pending(0), 0);
  EXPECT_EQ(accumulator.pending(1), 2);
  expect_emitted(run(accumulator, step(50, 3, 51, 102, 30, 103, 0, 0, -1, -1)),
                 {{100, 110, 52.3f, 103, false, 0.729f}});  // 10 + 0.9 * 20 + 0.81 * 30
  expect_emitted(run(accumulator, step(51, 4, 52, 103, 40, 200, 0, 1, -1, 104)),
                 {
                     {101, 111, 79.4f, 104, false, 0.729f},  // 20 + 0.9 * 30 + 0.81 * 40
                     {102, 112, 66.0f, 104, false, 0.81f},   // 30 + 0.9 * 40
                     {103, 113, 40.0f, 104, false, 0.9f},
                 });
  expect_emitted(run(accumulator, step(52, 5, 53, 200, 1, 201, 0, 0, -1, -1)),
                 {{50, 60, 10.65f, 53, false, 0.729f}});  // 3 + 0.9 * 4 + 0.81 * 5
  // Both envs emit at the same step: env 0 first, then env 1's flushed episode.
  expect_emitted(run(accumulator, step(53, 6, 54, 201, 1, 300, 0, 1, -1, 301)),
                 {
                     {51, 61, 13.36f, 54, false, 0.729f},  // 4 + 0.9 * 5 + 0.81 * 6
                     {200, 210, 1.9f, 301, false, 0.81f},  // 1 + 0.9 * 1
                     {201, 211, 1.0f, 301, false, 0.9f},
                 });
}

// (f) With n = 1 every step is its own transition: reward r, discount gamma, next observation
// the final one where the episode ended.
TEST(NStepAccumulatorTest, OneStepGivesPlainTransitions) {
  constexpr int kEnvs = 3;
  NStepAccumulator accumulator(kEnvs, 1, kGamma, 1, 1);
  core::Rng rng(7);
  for (int t = 0; t < 50; ++t) {
    Step s;
    for (int env = 0; env < kEnvs; ++env) {
      s.observations.push_back(static_cast<float>(100 * env + t));
      s.actions.push_back(static_cast<float>(rng.below(4)));
      s.rewards.push_back(static_cast<float>(rng.uniform(-1.0, 1.0)));
      s.next_observations.push_back(static_cast<float>(100 * env + t + 1));
      s.terminated.push_back(rng.uniform() < 0.1 ? 1 : 0);
      s.truncated.push_back(rng.uniform() < 0.1 ? 1 : 0);
      s.final_observations.push_back(static_cast<float>(-100 * env - t));
    }
    const std::vector<Emitted> got = run(accumulator, s);
    ASSERT_EQ(got.size(), static_cast<std::size_t>(kEnvs)) << "step " << t;
    for (std::size_t env = 0; env < kEnvs; ++env) {
      SCOPED_TRACE("step " + std::to_string(t) + ", env " + std::to_string(env));
      const bool ended = s.terminated[env] != 0 || s.truncated[env] != 0;
      EXPECT_EQ(got[env].observation, s.observations[env]);
      EXPECT_EQ(got[env].action, s.actions[env]);
      EXPECT_EQ(got[env].reward, s.rewards[env]);
      EXPECT_EQ(got[env].next_observation,
                ended ? s.final_observations[env] : s.next_observations[env]);
      EXPECT_EQ(got[env].terminated, s.terminated[env] != 0);
      EXPECT_EQ(got[env].discount, kGamma);
      EXPECT_EQ(accumulator.pending(static_cast<std::int64_t>(env)), 0);
    }
  }
}

TEST(NStepAccumulatorTest, ClearDropsPendingSteps) {
  NStepAccumulator accumulator(1, 3, kGamma, 1, 1);
  run(accumulator, one(0, 1, 1));
  run(accumulator, one(1, 2, 2));
  accumulator.clear();
  EXPECT_EQ(accumulator.pending(0), 0);
  expect_emitted(run(accumulator, one(5, 1, 6)), {});
  expect_emitted(run(accumulator, one(6, 1, 7)), {});
  expect_emitted(run(accumulator, one(7, 1, 8)), {{5, 15, 2.71f, 8, false, 0.729f}});
}

}  // namespace
}  // namespace mnrl::replay
