#include "envs/vector_env.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include "core/rng.h"
#include "envs/cartpole.h"
#include "envs/env_options.h"
#include "envs/registry.h"
#include "scripted_env.h"

namespace mnrl::envs {
namespace {

using test_envs::ScriptedEnv;

std::unique_ptr<VectorEnv> make_cartpoles(int n, std::uint64_t seed, int limit = 0) {
  std::vector<std::unique_ptr<Env>> envs;
  for (int i = 0; i < n; ++i) envs.push_back(Registry::global().make("CartPole-v1", {}, limit));
  return std::make_unique<VectorEnv>(std::move(envs), seed);
}

// An action that depends only on the env index and the step, never on the batch size.
std::int64_t scripted_action(int env, int t) { return ((t / (env + 1)) + env) % 2; }

std::vector<float> row(const float* data, int i, std::int64_t size) {
  return std::vector<float>(data + i * size, data + (i + 1) * size);
}

// Steps a vector env and a separately seeded single env per index side by side: every row must
// follow the single env, with its auto-reset and final observation.
void expect_matches_single_envs(int limit) {
  const std::uint64_t seed = 42;
  const int n = 3;
  auto vec = make_cartpoles(n, seed, limit);
  std::vector<std::unique_ptr<Env>> singles;
  std::vector<std::array<float, 4>> obs(n);
  for (int i = 0; i < n; ++i) {
    singles.push_back(Registry::global().make("CartPole-v1", {}, limit));
    singles[i]->reset(obs[i].data(), core::derive_seed(seed, static_cast<std::uint64_t>(i)));
  }
  vec->reset();
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(row(vec->observations().floats(), i, 4),
              std::vector<float>(obs[i].begin(), obs[i].end()));
  }
  int episodes_ended = 0;
  std::vector<std::int64_t> actions(n);
  for (int t = 0; t < 300; ++t) {
    for (int i = 0; i < n; ++i) actions[i] = scripted_action(i, t);
    vec->step(ActionBatch{actions.data(), nullptr, actions.size()});
    for (int i = 0; i < n; ++i) {
      const StepResult result = singles[i]->step(ActionRef{actions[i], nullptr}, obs[i].data());
      EXPECT_EQ(vec->rewards()[i], result.reward);
      EXPECT_EQ(vec->terminated()[i], result.terminated);
      EXPECT_EQ(vec->truncated()[i], result.truncated);
      const std::vector<float> expected(obs[i].begin(), obs[i].end());
      if (result.terminated || result.truncated) {
        ++episodes_ended;
        EXPECT_EQ(row(vec->final_observations().floats(), i, 4), expected)
            << "env " << i << " t " << t;
        singles[i]->reset(obs[i].data(), std::nullopt);
        for (const float v : row(vec->observations().floats(), i, 4)) {
          EXPECT_GE(v, -0.05f);
          EXPECT_LE(v, 0.05f);
        }
      }
      EXPECT_EQ(row(vec->observations().floats(), i, 4),
                std::vector<float>(obs[i].begin(), obs[i].end()))
          << "env " << i << " t " << t;
    }
  }
  EXPECT_GT(episodes_ended, 5);
}

TEST(VectorEnvTest, AutoResetMatchesSingleEnvsOnTermination) { expect_matches_single_envs(0); }

TEST(VectorEnvTest, AutoResetMatchesSingleEnvsOnTruncation) { expect_matches_single_envs(7); }

TEST(VectorEnvTest, CountsEpisodeReturnsAndLengths) {
  std::vector<std::unique_ptr<Env>> envs;
  envs.push_back(std::make_unique<ScriptedEnv>(3));  // returns 0.5 + 1 + 1.5 = 3
  envs.push_back(std::make_unique<ScriptedEnv>(4));  // returns 0.5 + 1 + 1.5 + 2 = 5
  VectorEnv vec(std::move(envs), 0);
  vec.reset();
  const std::vector<std::int64_t> actions = {0, 0};
  for (int t = 1; t <= 12; ++t) {
    vec.step(ActionBatch{actions.data(), nullptr, actions.size()});
    EXPECT_EQ(vec.terminated()[0], t % 3 == 0);
    EXPECT_EQ(vec.terminated()[1], t % 4 == 0);
    if (t % 3 == 0) {
      EXPECT_EQ(vec.episode_returns()[0], 3.0);
      EXPECT_EQ(vec.episode_lengths()[0], 3);
      EXPECT_EQ(vec.final_observations().floats()[1], 3.0f);    // step count of the ended episode
      EXPECT_EQ(vec.observations().floats()[1], 0.0f);          // already reset
      EXPECT_EQ(vec.observations().floats()[0], t / 3 + 1.0f);  // episode number
    }
    if (t % 4 == 0) {
      EXPECT_EQ(vec.episode_returns()[1], 5.0);
      EXPECT_EQ(vec.episode_lengths()[1], 4);
    }
  }
  // reset() discards the running episode: the next one is counted from zero.
  vec.step(ActionBatch{actions.data(), nullptr, actions.size()});
  vec.reset();
  for (int t = 0; t < 3; ++t) vec.step(ActionBatch{actions.data(), nullptr, actions.size()});
  EXPECT_TRUE(vec.terminated()[0]);
  EXPECT_EQ(vec.episode_lengths()[0], 3);
  EXPECT_EQ(vec.episode_returns()[0], 3.0);
}

TEST(VectorEnvTest, FirstResetSeedsLaterResetsContinue) {
  std::vector<std::unique_ptr<Env>> envs;
  for (int i = 0; i < 2; ++i) envs.push_back(std::make_unique<ScriptedEnv>(1));
  VectorEnv vec(std::move(envs), 9);
  vec.reset();
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(vec.observations().floats()[i * 3 + 2],
              static_cast<float>(core::derive_seed(9, static_cast<std::uint64_t>(i)) % 1000));
  }
  const std::vector<std::int64_t> actions = {0, 0};
  vec.step(ActionBatch{actions.data(), nullptr, actions.size()});  // auto-reset: unseeded
  EXPECT_EQ(vec.observations().floats()[2], -1.0f);
  vec.reset();
  EXPECT_EQ(vec.observations().floats()[2], -1.0f);
}

std::vector<std::vector<float>> trajectory(int num_envs, std::uint64_t seed, int keep_envs) {
  auto vec = make_cartpoles(num_envs, seed);
  vec->reset();
  std::vector<std::vector<float>> rows(keep_envs);
  std::vector<std::int64_t> actions(num_envs);
  for (int t = 0; t < 200; ++t) {
    for (int i = 0; i < num_envs; ++i) actions[i] = scripted_action(i, t);
    vec->step(ActionBatch{actions.data(), nullptr, actions.size()});
    for (int i = 0; i < keep_envs; ++i) {
      const auto r = row(vec->observations().floats(), i, 4);
      rows[i].insert(rows[i].end(), r.begin(), r.end());
      rows[i].push_back(vec->terminated()[i]);
    }
  }
  return rows;
}

TEST(VectorEnvTest, SameSeedSameTrajectoryDifferentSeedDifferent) {
  EXPECT_EQ(trajectory(4, 5, 4), trajectory(4, 5, 4));
  EXPECT_NE(trajectory(4, 5, 4), trajectory(4, 6, 4));
  const auto rows = trajectory(4, 5, 4);
  EXPECT_NE(rows[0], rows[1]);  // envs get different seeds
}

TEST(VectorEnvTest, RowsDoNotDependOnNumEnvs) {
  EXPECT_EQ(trajectory(2, 11, 2), trajectory(8, 11, 2));
}

TEST(VectorEnvTest, BoxActionsPassEachEnvItsRow) {
  std::vector<std::unique_ptr<Env>> envs;
  for (int i = 0; i < 3; ++i) envs.push_back(std::make_unique<ScriptedEnv>(0, "Scripted-v0", 2));
  std::vector<const ScriptedEnv*> raw;
  for (const auto& env : envs) raw.push_back(static_cast<const ScriptedEnv*>(env.get()));
  VectorEnv vec(std::move(envs), 0);
  vec.reset();
  const std::vector<float> values = {0.f, 0.1f, 1.f, 1.1f, 2.f, 2.1f};
  EXPECT_THROW(vec.step(ActionBatch{nullptr, nullptr}), std::invalid_argument);
  vec.step(ActionBatch{nullptr, values.data(), values.size()});
  for (int i = 0; i < 3; ++i) EXPECT_EQ(raw[i]->last_action().values, values.data() + 2 * i);
}

TEST(VectorEnvTest, DiscreteActionsNeedIndices) {
  auto vec = make_cartpoles(2, 0);
  vec->reset();
  const std::vector<float> values = {0.f, 1.f};
  try {
    vec->step(ActionBatch{nullptr, values.data(), values.size()});
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("expected 2 action indices"), std::string::npos)
        << e.what();
  }
  const std::vector<std::int64_t> bad = {0, 2};
  EXPECT_THROW(vec->step(ActionBatch{bad.data(), nullptr, bad.size()}), std::invalid_argument);
}

// uint8 observations stay bytes: the batch, the final observations and the saved state.
TEST(VectorEnvTest, KeepsUint8ObservationsAsBytes) {
  const auto make = [] {
    std::vector<std::unique_ptr<Env>> envs;
    for (int i = 0; i < 2; ++i) envs.push_back(Registry::global().make("MinAtar/Breakout-v1"));
    return std::make_unique<VectorEnv>(std::move(envs), 5);
  };
  auto vec = make();
  vec->reset();
  ASSERT_EQ(vec->observations().dtype(), Dtype::uint8);
  ASSERT_EQ(vec->observation_size(), 400);
  const std::int64_t noop[2] = {0, 0};
  bool ended = false;
  std::vector<std::uint8_t> before(800);
  for (int t = 0; t < 100 && !ended; ++t) {
    std::copy_n(vec->observations().bytes(), 800, before.begin());
    vec->step({noop, nullptr, 2});
    ended = vec->terminated()[0];
  }
  ASSERT_TRUE(ended) << "a paddle left alone misses the ball";
  // The final observation is the ball past the paddle, not the last one before it.
  const std::uint8_t* final_observation = vec->final_observations().bytes();
  EXPECT_NE(std::vector<std::uint8_t>(final_observation, final_observation + 400),
            std::vector<std::uint8_t>(before.begin(), before.begin() + 400));

  core::StateWriter out;
  vec->save_state(out);
  auto restored = make();
  core::StateReader in(out.bytes(), "test");
  ASSERT_TRUE(restored->load_state(in));
  EXPECT_EQ(0, std::memcmp(restored->observations().bytes(), vec->observations().bytes(), 800));
  for (int t = 0; t < 20; ++t) {
    vec->step({noop, nullptr, 2});
    restored->step({noop, nullptr, 2});
    ASSERT_EQ(0, std::memcmp(restored->observations().bytes(), vec->observations().bytes(), 800))
        << "step " << t;
  }
}

TEST(VectorEnvTest, StepBeforeResetThrows) {
  auto vec = make_cartpoles(2, 0);
  const std::vector<std::int64_t> actions = {0, 0};
  EXPECT_THROW(vec->step(ActionBatch{actions.data(), nullptr, actions.size()}), std::logic_error);
}

TEST(VectorEnvTest, ConstructorRejectsEmptyNullAndMixedEnvs) {
  EXPECT_THROW(VectorEnv({}, 0), std::invalid_argument);

  std::vector<std::unique_ptr<Env>> with_null;
  with_null.push_back(std::make_unique<CartPole>());
  with_null.push_back(nullptr);
  EXPECT_THROW(VectorEnv(std::move(with_null), 0), std::invalid_argument);

  std::vector<std::unique_ptr<Env>> mixed_ids;
  mixed_ids.push_back(std::make_unique<ScriptedEnv>(0, "A-v0"));
  mixed_ids.push_back(std::make_unique<ScriptedEnv>(0, "B-v0"));
  try {
    VectorEnv vec(std::move(mixed_ids), 0);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("env 1 ('B-v0'"), std::string::npos) << e.what();
  }

  std::vector<std::unique_ptr<Env>> mixed_spaces;
  mixed_spaces.push_back(std::make_unique<ScriptedEnv>(0, "A-v0"));
  mixed_spaces.push_back(std::make_unique<ScriptedEnv>(0, "A-v0", 2));
  EXPECT_THROW(VectorEnv(std::move(mixed_spaces), 0), std::invalid_argument);
}

TEST(VectorEnvTest, MakeVectorEnvFromOptions) {
  EnvOptions options;
  options.num_envs = 3;
  options.max_episode_steps = 10;
  const auto vec = make_vector_env(options, 1);
  EXPECT_EQ(vec->num_envs(), 3);
  EXPECT_EQ(vec->spec().id, "CartPole-v1");
  EXPECT_EQ(vec->spec().max_episode_steps, 10);
  EXPECT_EQ(vec->observation_size(), 4);

  options.max_episode_steps = 0;
  EXPECT_EQ(make_vector_env(options, 1)->spec().max_episode_steps, 500);

  options.id = "CartPol-v1";
  EXPECT_THROW(make_vector_env(options, 1), std::invalid_argument);
  options.id = "CartPole-v1";
  options.num_envs = 0;
  EXPECT_THROW(make_vector_env(options, 1), std::invalid_argument);
}

}  // namespace
}  // namespace mnrl::envs
