#include "replay/rollout_buffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>
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

// V-trace by the paper's sum (Espeholt et al. 2018, eq. 1), over one episode segment of length
// T that continues into V(x_T) = `bootstrap`, in double precision:
// v_s = V(x_s) + sum_{t=s}^{T-1} gamma^(t-s) (prod_{i=s}^{t-1} c_i) rho_t (r_t + gamma V(x_{t+1})
// - V(x_t)); the policy gradient's weight min(pg_rho_bar, ratio_s) (r_s + gamma v_{s+1} - V(x_s)).
struct Vtrace {
  std::vector<double> vs, pg_advantages;
};
Vtrace vtrace_by_the_sum(const std::vector<double>& rewards, const std::vector<double>& values,
                         const std::vector<double>& log_rhos, double bootstrap,
                         const RolloutBuffer::VtraceOptions& o) {
  const std::size_t n = rewards.size();
  const auto value = [&](std::size_t t) { return t < n ? values[t] : bootstrap; };
  const auto ratio = [&](std::size_t t) { return std::exp(log_rhos[t]); };
  Vtrace out{std::vector<double>(n), std::vector<double>(n)};
  for (std::size_t s = 0; s < n; ++s) {
    double sum = 0.0, traces = 1.0;
    for (std::size_t t = s; t < n; ++t) {
      const double rho = std::min<double>(o.rho_bar, ratio(t));
      sum += std::pow(o.gamma, t - s) * traces * rho *
             (rewards[t] + o.gamma * value(t + 1) - value(t));
      traces *= std::min<double>(o.c_bar, ratio(t));
    }
    out.vs[s] = values[s] + sum;
  }
  for (std::size_t s = 0; s < n; ++s) {
    const double next_vs = s + 1 < n ? out.vs[s + 1] : bootstrap;
    out.pg_advantages[s] =
        std::min<double>(o.pg_rho_bar, ratio(s)) * (rewards[s] + o.gamma * next_vs - values[s]);
  }
  return out;
}

// One env over 7 steps with episode ends at t = 2 (terminated: no bootstrap) and t = 4
// (truncated: V(final observation) = 3), log-ratios on both sides of every bar: each segment
// is the paper's sum.
TEST(RolloutBufferTest, VtraceIsThePapersSumWithinEachEpisode) {
  const std::vector<double> rewards{1.0, -0.5, 2.0, 0.25, 1.5, -1.0, 0.75};
  const std::vector<double> values{0.3, 1.2, -0.4, 0.9, 2.1, 0.6, -0.2};
  const std::vector<double> log_rhos{0.4, -0.7, 1.1, -0.1, 0.05, -1.3, 0.6};
  const float last_value = 1.7f, truncated_bootstrap = 3.0f;
  RolloutBuffer buffer(7, 1, 1, 1);
  std::vector<StepRow> steps;
  for (std::size_t t = 0; t < rewards.size(); ++t) {
    steps.push_back({{static_cast<float>(rewards[t])},
                     {0.0f},  // the actor's value: V-trace uses the learner's
                     {t == 4 ? truncated_bootstrap : 0.0f},
                     {static_cast<std::uint8_t>(t == 2)},
                     {static_cast<std::uint8_t>(t == 4)}});
  }
  fill(buffer, steps);
  const std::vector<float> learner_values(values.begin(), values.end());
  const std::vector<float> learner_log_rhos(log_rhos.begin(), log_rhos.end());
  RolloutBuffer::VtraceOptions options;
  options.gamma = 0.9f;
  options.rho_bar = 1.2f;
  options.c_bar = 0.8f;
  options.pg_rho_bar = 1.5f;
  buffer.compute_vtrace(learner_values.data(), &last_value, learner_log_rhos.data(), options);

  // Segments [0, 2] (then terminated), [3, 4] (then truncated), [5, 6] (then the last value).
  const std::vector<std::tuple<std::size_t, std::size_t, double>> segments{
      {0, 3, 0.0}, {3, 5, truncated_bootstrap}, {5, 7, last_value}};
  for (const auto& [begin, end, bootstrap] : segments) {
    const auto part = [&](const std::vector<double>& v) {
      return std::vector<double>(v.begin() + begin, v.begin() + end);
    };
    const Vtrace expected =
        vtrace_by_the_sum(part(rewards), part(values), part(log_rhos), bootstrap, options);
    for (std::size_t t = begin; t < end; ++t) {
      EXPECT_NEAR(buffer.returns()[t], expected.vs[t - begin], 1e-5) << "v at t = " << t;
      EXPECT_NEAR(buffer.advantages()[t], expected.pg_advantages[t - begin], 1e-5)
          << "policy gradient weight at t = " << t;
    }
  }
}

// On-policy (pi = mu), with the bars at 1, V-trace's targets are the lambda = 1 returns and its
// policy gradient weights the lambda = 1 advantages: the GAE example's episodes, both ways.
TEST(RolloutBufferTest, OnPolicyVtraceIsGaeWithLambdaOne) {
  const std::vector<StepRow> steps{
      {{1, 0, 1}, {0.5f, 1, 0}, {0, 4, 100}, {0, 0, 1}, {0, 1, 1}},
      {{2, 1, 1}, {1, 2, 0}, {0, 0, 0}, {1, 0, 0}, {0, 0, 0}},
      {{3, 1, 1}, {1.5f, 1, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
  };
  const std::vector<float> last_values{2.0f, 0.5f, 2.0f};
  RolloutBuffer gae(3, 3, 1, 1), vtrace(3, 3, 1, 1);
  fill(gae, steps);
  fill(vtrace, steps);
  gae.compute_advantages(last_values.data(), 0.5f, 1.0f);
  const std::vector<float> log_rhos(9, 0.0f);
  RolloutBuffer::VtraceOptions options;
  options.gamma = 0.5f;
  vtrace.compute_vtrace(gae.values(), last_values.data(), log_rhos.data(), options);
  for (std::size_t i = 0; i < 9; ++i) {
    EXPECT_FLOAT_EQ(vtrace.returns()[i], gae.returns()[i]) << "index " << i;
    EXPECT_FLOAT_EQ(vtrace.advantages()[i], gae.advantages()[i]) << "index " << i;
  }
}

// An actor's rollout of 2 envs packed, and unpacked as envs 1 and 2 of a learner's 4: every
// row lands in its env's column, the other envs' rows untouched.
TEST(RolloutBufferTest, APackedRolloutUnpacksIntoItsEnvsOfALargerOne) {
  RolloutBuffer actor(2, 2, /*observation_size=*/3, /*action_size=*/2);
  float next = 1.0f, truncated_bootstrap = 0.0f;
  for (int t = 0; t < 2; ++t) {
    for (int i = 0; i < 2 * 3; ++i) actor.observations_at_step()[i] = next++;
    for (int i = 0; i < 2 * 2; ++i) actor.actions_at_step()[i] = next++;
    for (int e = 0; e < 2; ++e) {
      actor.log_probs_at_step()[e] = next++;
      actor.values_at_step()[e] = -1.0f;  // not sent: a learner computes its own
      actor.rewards_at_step()[e] = next++;
      actor.bootstrap_values_at_step()[e] = next++;
      if (t == 0 && e == 1) truncated_bootstrap = actor.bootstrap_values_at_step()[e];
      actor.terminated_at_step()[e] = static_cast<std::uint8_t>(t == 1 && e == 0);
      actor.truncated_at_step()[e] = static_cast<std::uint8_t>(t == 0 && e == 1);
    }
    actor.advance();
  }
  std::vector<float> packed(static_cast<std::size_t>(actor.packed_floats()));
  actor.pack(packed.data());

  RolloutBuffer learner(2, 4, 3, 2);
  EXPECT_THROW(learner.unpack_envs(packed.data(), 2, 3), std::invalid_argument);
  learner.unpack_envs(packed.data(), 2, 1);
  ASSERT_TRUE(learner.full());
  for (int t = 0; t < 2; ++t) {
    for (int e = 0; e < 2; ++e) {
      const int a = t * 2 + e, l = t * 4 + e + 1;  // the same row in each
      for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(learner.observations()[l * 3 + k], actor.observations()[a * 3 + k]);
      }
      for (int k = 0; k < 2; ++k) EXPECT_EQ(learner.actions()[l * 2 + k], actor.actions()[a * 2 + k]);
      EXPECT_EQ(learner.log_probs()[l], actor.log_probs()[a]);
      EXPECT_EQ(learner.rewards()[l], actor.rewards()[a]);
    }
    EXPECT_EQ(learner.observations()[t * 4 * 3], 0.0f);  // env 0: untouched
    EXPECT_EQ(learner.rewards()[t * 4 + 3], 0.0f);        // env 3: untouched
  }
  // The flags and bootstrap values arrive too: V-trace ends the same episodes.
  const std::vector<float> values(8, 0.5f), last_values(4, 2.0f), log_rhos(8, 0.0f);
  learner.compute_vtrace(values.data(), last_values.data(), log_rhos.data(), {0.5f});
  EXPECT_FLOAT_EQ(learner.returns()[1 * 4 + 1], actor.rewards()[1 * 2 + 0]);  // terminated
  EXPECT_FLOAT_EQ(learner.returns()[0 * 4 + 2],
                  actor.rewards()[0 * 2 + 1] + 0.5f * truncated_bootstrap);  // truncated
}

TEST(RolloutBufferTest, RefusesToOverfillOrComputeEarly) {
  RolloutBuffer buffer(2, 1, 1, 1);
  const float last_value = 0.0f;
  buffer.advance();
  EXPECT_THROW(buffer.compute_advantages(&last_value, 0.9f, 0.9f), std::logic_error);
  EXPECT_THROW(buffer.compute_vtrace(&last_value, &last_value, &last_value, {}), std::logic_error);
  buffer.advance();
  EXPECT_TRUE(buffer.full());
  EXPECT_THROW(buffer.advance(), std::logic_error);
  // A full buffer hands out no row to write past its end.
  EXPECT_THROW(buffer.observations_at_step(), std::logic_error);
  EXPECT_THROW(buffer.bootstrap_values_at_step(), std::logic_error);
  buffer.clear();
  EXPECT_EQ(buffer.step(), 0);
}

TEST(RolloutBufferTest, RejectsEmptyShapes) {
  EXPECT_THROW(RolloutBuffer(0, 1, 1, 1), std::invalid_argument);
  EXPECT_THROW(RolloutBuffer(1, 1, 0, 1), std::invalid_argument);
}

}  // namespace
}  // namespace mnrl::replay
