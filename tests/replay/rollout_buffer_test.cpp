#include "replay/rollout_buffer.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace mnrl::replay {
namespace {

struct StepRow {
  std::vector<float> rewards, values, bootstrap;
  std::vector<std::uint8_t> terminated, truncated;
};

void fill(RolloutBuffer& buffer, const std::vector<StepRow>& steps) {
  for (const auto& s : steps) {
    const auto n = static_cast<std::size_t>(buffer.num_envs());
    for (std::size_t i = 0; i < n; ++i) {
      buffer.observations_at_step()[i] = 0.0f;
      buffer.actions_at_step()[i] = 0.0f;
      buffer.log_probs_at_step()[i] = 0.0f;
      buffer.values_at_step()[i] = s.values[i];
      buffer.rewards_at_step()[i] = s.rewards[i];
      buffer.terminated_at_step()[i] = s.terminated[i];
      buffer.truncated_at_step()[i] = s.truncated[i];
      buffer.bootstrap_values_at_step()[i] = s.bootstrap[i];
    }
    buffer.advance();
  }
}

// gamma = lambda = 0.5, three envs over three steps, worked by hand:
//  env 0: terminates at t=1 (no bootstrap), a new episode runs at t=2.
//  env 1: truncated at t=0, bootstrapped from V(final obs) = 4.
//  env 2: terminated and truncated together at t=0: terminated wins, the bootstrap value
//         (100) must be ignored.
TEST(RolloutBufferTest, GaeMatchesHandComputedExampleWithTerminationAndTruncation) {
  RolloutBuffer buffer(/*n_steps=*/3, /*num_envs=*/3, /*observation_size=*/1, /*action_size=*/1);
  fill(buffer, {
                   {{1, 0, 1}, {0.5f, 1, 0}, {0, 4, 100}, {0, 0, 1}, {0, 1, 1}},
                   {{2, 1, 1}, {1, 2, 0}, {0, 0, 0}, {1, 0, 0}, {0, 0, 0}},
                   {{3, 1, 1}, {1.5f, 1, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
               });
  const std::vector<float> last_values{2.0f, 0.5f, 2.0f};
  buffer.compute_advantages(last_values.data(), 0.5f, 0.5f);

  // Row-major [step][env].
  const std::vector<float> expected_advantages{
      1.25f, 1.0f, 1.0f,      // t=0
      1.0f, -0.4375f, 1.5f,   // t=1
      2.5f, 0.25f, 2.0f,      // t=2
  };
  const std::vector<float> values{0.5f, 1, 0, 1, 2, 0, 1.5f, 1, 0};
  for (std::size_t i = 0; i < expected_advantages.size(); ++i) {
    EXPECT_FLOAT_EQ(buffer.advantages()[i], expected_advantages[i]) << "index " << i;
    EXPECT_FLOAT_EQ(buffer.returns()[i], expected_advantages[i] + values[i]) << "index " << i;
  }
}

TEST(RolloutBufferTest, LambdaOneGivesDiscountedMonteCarloReturns) {
  // One env, no episode end, gamma 0.9: returns are sum of discounted rewards + bootstrap.
  RolloutBuffer buffer(3, 1, 1, 1);
  fill(buffer, {{{1}, {0.3f}, {0}, {0}, {0}}, {{1}, {0.2f}, {0}, {0}, {0}}, {{1}, {0.1f}, {0}, {0}, {0}}});
  const float last_value = 10.0f;
  buffer.compute_advantages(&last_value, 0.9f, 1.0f);
  EXPECT_NEAR(buffer.returns()[2], 1 + 0.9 * 10, 1e-5);
  EXPECT_NEAR(buffer.returns()[1], 1 + 0.9 * (1 + 0.9 * 10), 1e-5);
  EXPECT_NEAR(buffer.returns()[0], 1 + 0.9 * (1 + 0.9 * (1 + 0.9 * 10)), 1e-5);
}

TEST(RolloutBufferTest, RefusesToOverfillOrComputeEarly) {
  RolloutBuffer buffer(2, 1, 1, 1);
  const float last_value = 0.0f;
  buffer.advance();
  EXPECT_THROW(buffer.compute_advantages(&last_value, 0.9f, 0.9f), std::logic_error);
  buffer.advance();
  EXPECT_TRUE(buffer.full());
  EXPECT_THROW(buffer.advance(), std::logic_error);
  buffer.clear();
  EXPECT_EQ(buffer.step(), 0);
}

TEST(RolloutBufferTest, RejectsEmptyShapes) {
  EXPECT_THROW(RolloutBuffer(0, 1, 1, 1), std::invalid_argument);
  EXPECT_THROW(RolloutBuffer(1, 1, 0, 1), std::invalid_argument);
}

}  // namespace
}  // namespace mnrl::replay
