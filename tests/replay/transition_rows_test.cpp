// Ape-X's path for transitions: an actor's replay diverts them into TransitionRows, which
// measure, pack and send them; the learner reads them back into its prioritized replay.
#include "replay/transition_rows.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "core/rng.h"
#include "replay/replay.h"

namespace mnrl::replay {
namespace {

// Two envs, two-float observations, gamma 0.5, 2-step returns, uniform replay.
ReplayOptions two_envs() {
  ReplayOptions options;
  options.capacity = 100;
  options.observation_size = 2;
  options.num_envs = 2;
  options.n_step = 2;
  options.gamma = 0.5f;
  return options;
}

TEST(TransitionRowsTest, ADivertedReplayHandsItsNStepTransitionsOn) {
  Replay replay(two_envs());
  TransitionRows rows(2, 1);
  replay.divert_to([&rows](const Transition& transition) { rows.append(transition); });
  // Env i at step t observes (10 t + i, -t), takes action i, gets reward t + 1.
  for (int t = 0; t < 3; ++t) {
    const std::vector<float> observations{10.0f * t, -1.0f * t, 10.0f * t + 1, -1.0f * t};
    const std::vector<float> next{10.0f * (t + 1), -1.0f * (t + 1), 10.0f * (t + 1) + 1,
                                  -1.0f * (t + 1)};
    const std::vector<float> actions{0, 1}, rewards(2, static_cast<float>(t + 1));
    const std::vector<std::uint8_t> terminated{static_cast<std::uint8_t>(t == 2), 0}, truncated{0, 0};
    replay.add_step(observations.data(), actions.data(), rewards.data(), next.data(),
                    terminated.data(), truncated.data(), next.data());
  }
  EXPECT_EQ(replay.size(), 0);  // nothing kept
  // Steps 0 and 1 of both envs completed 2-step returns; env 0's end flushed its step 2.
  ASSERT_EQ(rows.rows(), 5);
  TransitionBatch batch;
  rows.gather(3, 1.0f, batch);
  // Env 0's step 0, env 1's step 0, env 0's step 1 (after step 1; env order within a step).
  EXPECT_EQ(batch.observations, (std::vector<float>{0, 0, 1, 0, 10, -1}));
  EXPECT_EQ(batch.actions, (std::vector<float>{0, 1, 0}));
  EXPECT_EQ(batch.rewards, (std::vector<float>{1 + 0.5f * 2, 1 + 0.5f * 2, 2 + 0.5f * 3}));
  EXPECT_EQ(batch.next_observations, (std::vector<float>{20, -2, 21, -2, 30, -3}));
  EXPECT_EQ(batch.terminated, (std::vector<std::uint8_t>{0, 0, 1}));
  EXPECT_EQ(batch.discounts, (std::vector<float>{0.25f, 0.25f, 0.25f}));

  const std::vector<float> priorities{0.5f, 2.0f, 4.0f};
  std::vector<float> packed(static_cast<std::size_t>(3 * rows.row_floats()));
  rows.take(3, priorities.data(), packed.data());
  EXPECT_EQ(rows.rows(), 2);  // the rest come first next time
  rows.gather(1, 1.0f, batch);
  EXPECT_EQ(batch.observations, (std::vector<float>{20, -2}));  // env 0's step 2

  std::vector<float> read_priorities;
  std::vector<float> values;
  for_each_transition(packed.data(), 3, 2, 1, core::Dtype::float32,
                      [&](const Transition& transition, float priority) {
                        values.push_back(transition.observation.floats()[0]);
                        values.push_back(transition.next_observation.floats()[1]);
                        values.push_back(transition.action[0]);
                        values.push_back(transition.reward);
                        values.push_back(transition.terminated ? 1.0f : 0.0f);
                        values.push_back(transition.discount);
                        read_priorities.push_back(priority);
                      });
  EXPECT_EQ(values, (std::vector<float>{0, -2, 0, 2, 0, 0.25f,  //
                                        1, -2, 1, 2, 0, 0.25f,  //
                                        10, -3, 0, 3.5f, 1, 0.25f}));
  EXPECT_EQ(read_priorities, priorities);
}

TEST(TransitionRowsTest, ByteObservationsTravelAsTheirValues) {
  const std::vector<std::uint8_t> observation{0, 7, 255}, next{255, 128, 1};
  const float action = 2;
  Transition transition{observation.data(), &action, 1.5f, next.data(), false, 0.9f};
  TransitionRows rows(3, 1);
  rows.append(transition);
  TransitionBatch batch;
  rows.gather(1, 1.0f / 255, batch);  // for the network: scaled as an image's bytes
  EXPECT_FLOAT_EQ(batch.observations[1], 7.0f / 255);
  EXPECT_FLOAT_EQ(batch.next_observations[0], 1.0f);
  const float priority = 3.0f;
  std::vector<float> packed(static_cast<std::size_t>(rows.row_floats()));
  rows.take(1, &priority, packed.data());
  int calls = 0;
  for_each_transition(packed.data(), 1, 3, 1, core::Dtype::uint8,
                      [&](const Transition& read, float read_priority) {
                        ++calls;
                        ASSERT_EQ(read.observation.dtype(), core::Dtype::uint8);
                        EXPECT_EQ(std::vector<std::uint8_t>(read.observation.bytes(),
                                                            read.observation.bytes() + 3),
                                  observation);
                        EXPECT_EQ(std::vector<std::uint8_t>(read.next_observation.bytes(),
                                                            read.next_observation.bytes() + 3),
                                  next);
                        EXPECT_EQ(read_priority, priority);
                      });
  EXPECT_EQ(calls, 1);
  // A damaged message: a byte observation's value out of range.
  packed[1] = 300.0f;
  EXPECT_THROW(for_each_transition(packed.data(), 1, 3, 1, core::Dtype::uint8,
                                   [](const Transition&, float) {}),
               std::invalid_argument);
}

// A learner's replay takes each transition with the priority its actor measured: with alpha 1
// a transition of |TD error| 3 is drawn three times as often as one of 1.
TEST(TransitionRowsTest, ALearnersReplayDrawsByTheActorsPriorities) {
  ReplayOptions options;
  options.capacity = 10;
  options.prioritized = true;
  options.per.alpha = 1.0;
  options.per.epsilon = 1e-6;
  Replay replay(options);
  const float low = 1.0f, high = 2.0f, action = 0.0f;
  replay.add_transition({&low, &action, 0.0f, &low, false, 0.99f}, 1.0f);
  replay.add_transition({&high, &action, 0.0f, &high, false, 0.99f}, 3.0f);
  EXPECT_EQ(replay.size(), 2);
  core::Rng rng(3);
  TransitionBatch batch;
  replay.sample(rng, 4000, 0.0, batch);
  int highs = 0;
  for (float observation : batch.observations) highs += observation == high;
  EXPECT_NEAR(highs / 4000.0, 0.75, 0.03);
}

}  // namespace
}  // namespace mnrl::replay
