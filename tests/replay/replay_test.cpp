#include "replay/replay.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/rng.h"
#include "core/state_stream.h"

namespace mnrl::replay {
namespace {

// Two envs with one-float observations and actions; env i at step t observes 10 t + i.
ReplayOptions two_envs(int n_step, bool prioritized) {
  ReplayOptions options;
  options.capacity = 100;
  options.num_envs = 2;
  options.n_step = n_step;
  options.gamma = 0.5f;
  options.prioritized = prioritized;
  return options;
}

// Step t of both envs with reward 1, ending env 0's episode when `end`.
void add_step(Replay& replay, int t, bool end = false) {
  const std::vector<float> observations{10.0f * t, 10.0f * t + 1}, actions{0, 1}, rewards{1, 1},
      next{10.0f * (t + 1), 10.0f * (t + 1) + 1};
  const std::vector<std::uint8_t> terminated{end, 0}, truncated{0, 0};
  replay.add_step(observations.data(), actions.data(), rewards.data(), next.data(),
                  terminated.data(), truncated.data(), next.data());
}

TEST(ReplayTest, UniformOneStepStoresEveryEnvStepWithUnitWeights) {
  Replay replay(two_envs(1, false));
  for (int t = 0; t < 3; ++t) add_step(replay, t);
  EXPECT_EQ(replay.size(), 6);
  core::Rng rng(1);
  TransitionBatch batch;
  replay.sample(rng, 8, 0.0, batch);
  ASSERT_EQ(batch.rewards.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(batch.rewards[i], 1.0f);
    EXPECT_EQ(batch.discounts[i], 0.5f);
    EXPECT_EQ(batch.weights[i], 1.0f);
    EXPECT_EQ(batch.next_observations[i], batch.observations[i] + 10.0f);
  }
}

TEST(ReplayTest, NStepReturnsWaitForNStepsOrTheEpisodeEnd) {
  Replay replay(two_envs(3, false));
  add_step(replay, 0);
  add_step(replay, 1);
  EXPECT_EQ(replay.size(), 0);  // two of three steps pending in each env
  add_step(replay, 2, /*end=*/true);
  // Env 0's episode ended: its three pending steps; env 1 completed its first 3-step return.
  EXPECT_EQ(replay.size(), 4);
  core::Rng rng(2);
  TransitionBatch batch;
  replay.sample(rng, 64, 0.0, batch);
  for (std::size_t i = 0; i < 64; ++i) {
    if (batch.observations[i] == 0.0f || batch.observations[i] == 1.0f) {
      EXPECT_EQ(batch.rewards[i], 1.75f);  // 1 + 0.5 + 0.25
      EXPECT_EQ(batch.discounts[i], 0.125f);
    }
  }
}

TEST(ReplayTest, PrioritizedReplayDrawsWhatItWasToldMatters) {
  Replay replay(two_envs(1, true));
  for (int t = 0; t < 10; ++t) add_step(replay, t);
  core::Rng rng(3);
  TransitionBatch batch;
  replay.sample(rng, 20, 0.0, batch);
  // Of the transitions drawn, all but the first row's turn out to be learned already.
  const float important = batch.observations[0];
  std::vector<float> td_errors(20, 0.0f);
  for (std::size_t i = 0; i < 20; ++i) {
    if (batch.observations[i] == important) td_errors[i] = 100.0f;
  }
  replay.update_priorities(batch, td_errors.data());
  replay.sample(rng, 200, 0.5, batch);
  int drawn = 0;
  for (std::size_t i = 0; i < 200; ++i) drawn += batch.observations[i] == important;
  // Its weight (100 + 1e-6)^0.6 = 15.8 against at most 19 others of weight 1 (not drawn) or
  // 1e-6^0.6: drawn about 15.8 / 34.8 of the time or more; uniformly it would be 1 / 20.
  EXPECT_GT(drawn, 50);
}

TEST(ReplayTest, SavedTransitionsLoadIntoANewReplayAndDrawTheSameBatches) {
  for (const bool prioritized : {false, true}) {
    Replay replay(two_envs(2, prioritized));
    for (int t = 0; t < 7; ++t) add_step(replay, t, t == 4);
    core::StateWriter out;
    replay.save_transitions(out);
    Replay loaded(two_envs(2, prioritized));
    core::StateReader in(out.bytes(), "replay.bin");
    loaded.load_transitions(in);
    in.expect_end();
    EXPECT_EQ(loaded.size(), replay.size());
    core::Rng a(4), b(4);
    TransitionBatch from_saved, from_loaded;
    replay.sample(a, 16, 0.3, from_saved);
    loaded.sample(b, 16, 0.3, from_loaded);
    EXPECT_EQ(from_saved.observations, from_loaded.observations) << prioritized;
    EXPECT_EQ(from_saved.rewards, from_loaded.rewards) << prioritized;
    EXPECT_EQ(from_saved.weights, from_loaded.weights) << prioritized;
  }
}

}  // namespace
}  // namespace mnrl::replay
