// Saving and loading env state: a vector env restored from a saved state continues exactly as
// the original does, for every built-in env behind every stateful wrapper.
#include "envs/saved_state.h"

#include <gtest/gtest.h>

#include <cctype>
#include <memory>
#include <string>
#include <vector>

#include "core/rng.h"
#include "core/state_stream.h"
#include "envs/env_options.h"
#include "envs/normalize_reward.h"
#include "envs/space.h"
#include "envs/vector_env.h"
#include "scripted_env.h"

namespace {

using namespace mnrl::envs;
using mnrl::core::StateError;
using mnrl::core::StateReader;
using mnrl::core::StateWriter;
using mnrl::envs::test_envs::ScriptedEnv;

EnvOptions options_for(const std::string& id) {
  EnvOptions options;
  options.id = id;
  options.num_envs = 3;
  options.max_episode_steps = 40;  // episodes end (truncated) inside the test
  for (const char* type : {"frame_stack", "normalize_observation", "normalize_reward"}) {
    WrapperOptions wrapper;
    wrapper.type = type;
    wrapper.num_frames = 2;
    options.wrappers.push_back(wrapper);
  }
  return options;
}

// Random actions for every env, the same sequence for the same rng state.
class RandomActions {
 public:
  explicit RandomActions(const VectorEnv& envs) : envs_(envs) {}
  ActionBatch next(mnrl::core::Rng& rng) {
    const auto n = static_cast<std::size_t>(envs_.num_envs());
    if (const auto* discrete = std::get_if<Discrete>(&envs_.spec().action_space)) {
      indices_.resize(n);
      for (auto& index : indices_) index = static_cast<std::int64_t>(rng.below(discrete->n));
      return {indices_.data(), nullptr, n};
    }
    const auto& box = std::get<Box>(envs_.spec().action_space);
    values_.resize(n * box.low.size());
    for (std::size_t i = 0; i < values_.size(); ++i) {
      const std::size_t j = i % box.low.size();
      values_[i] = static_cast<float>(rng.uniform(box.low[j], box.high[j]));
    }
    return {nullptr, values_.data(), values_.size()};
  }

 private:
  const VectorEnv& envs_;
  std::vector<std::int64_t> indices_;
  std::vector<float> values_;
};

// Observations, rewards and ends of `steps` steps, all as floats.
std::vector<float> trajectory(VectorEnv& envs, mnrl::core::Rng rng, int steps) {
  RandomActions actions(envs);
  std::vector<float> out;
  const auto n = static_cast<std::size_t>(envs.num_envs());
  for (int t = 0; t < steps; ++t) {
    envs.step(actions.next(rng));
    out.insert(out.end(), envs.observations().floats(),
               envs.observations().floats() + n * envs.observation_size());
    out.insert(out.end(), envs.rewards(), envs.rewards() + n);
    for (std::size_t i = 0; i < n; ++i) {
      out.push_back(envs.terminated()[i] + 2.0f * envs.truncated()[i]);
      if (envs.terminated()[i] || envs.truncated()[i]) {
        out.push_back(static_cast<float>(envs.episode_returns()[i]));
      }
    }
  }
  return out;
}

class SavedStateTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SavedStateTest, RestoredVectorEnvContinuesExactly) {
  const EnvOptions options = options_for(GetParam());
  auto original = make_vector_env(options, 11);
  ASSERT_TRUE(original->saves_state());
  original->reset();
  mnrl::core::Rng rng(5);
  trajectory(*original, rng, 57);  // mid-episode, after some episodes ended
  StateWriter saved;
  original->save_state(saved);

  const std::vector<float> expected = trajectory(*original, mnrl::core::Rng(9), 120);
  auto restored = make_vector_env(options, 999);  // another seed: the state must override it
  StateReader in(saved.bytes(), "envs.state");
  EXPECT_TRUE(restored->load_state(in));
  in.expect_end();
  EXPECT_EQ(trajectory(*restored, mnrl::core::Rng(9), 120), expected);
}

INSTANTIATE_TEST_SUITE_P(BuiltInEnvs, SavedStateTest,
                         ::testing::Values("CartPole-v1", "Acrobot-v1", "MountainCar-v0",
                                           "MountainCarContinuous-v0", "Pendulum-v1"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return name;
                         });

TEST(SavedStateTest, StateOfAnotherConfigurationIsRefused) {
  auto cartpole = make_vector_env(options_for("CartPole-v1"), 1);
  cartpole->reset();
  StateWriter saved;
  cartpole->save_state(saved);

  auto pendulum = make_vector_env(options_for("Pendulum-v1"), 1);
  StateReader in(saved.bytes(), "envs.state");
  try {
    pendulum->load_state(in);
    FAIL() << "expected a refusal";
  } catch (const StateError& e) {
    EXPECT_NE(
        std::string(e.what()).find("a vector env of 3 x CartPole-v1, expected 3 x Pendulum-v1"),
        std::string::npos)
        << e.what();
  }
  EnvOptions fewer = options_for("CartPole-v1");
  fewer.wrappers.pop_back();  // no reward normalization
  auto other = make_vector_env(fewer, 1);
  StateReader again(saved.bytes(), "envs.state");
  EXPECT_THROW(
      {
        other->load_state(again);
        again.expect_end();
      },
      StateError);
}

// An env without StatefulEnv (a plugin built without it): the transforms' statistics are
// restored, and the envs need reset() for new episodes.
TEST(SavedStateTest, EnvsThatCannotSaveRestoreOnlyTheStatistics) {
  const auto make = [] {
    std::vector<std::unique_ptr<Env>> envs;
    envs.push_back(std::make_unique<ScriptedEnv>(3));
    std::vector<std::unique_ptr<BatchTransform>> transforms;
    transforms.push_back(std::make_unique<NormalizeReward>(std::make_shared<RunningMeanStd>(1), 1,
                                                           0.99, 10.0, 1e-8, true));
    return std::make_unique<VectorEnv>(std::move(envs), 1, 1, std::move(transforms));
  };
  auto original = make();
  EXPECT_FALSE(original->saves_state());
  original->reset();
  const std::int64_t action = 0;
  for (int t = 0; t < 5; ++t) original->step({&action, nullptr, 1});
  StateWriter saved;
  original->save_state(saved);

  auto restored = make();
  StateReader in(saved.bytes(), "envs.state");
  EXPECT_FALSE(restored->load_state(in));
  in.expect_end();
  EXPECT_EQ(restored->find_transform<NormalizeReward>()->statistics()->count(),
            original->find_transform<NormalizeReward>()->statistics()->count());
  EXPECT_THROW(restored->step({&action, nullptr, 1}), std::logic_error);
  restored->reset();
  restored->step({&action, nullptr, 1});
}

TEST(SavedStateTest, SavingBeforeResetIsALogicError) {
  auto envs = make_vector_env(options_for("CartPole-v1"), 1);
  StateWriter out;
  EXPECT_THROW(envs->save_state(out), std::logic_error);
}

}  // namespace
