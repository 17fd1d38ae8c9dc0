// Threaded vector envs agree bit for bit with serial ones, and fail cleanly.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/rng.h"
#include "envs/action_sampler.h"
#include "envs/env_options.h"
#include "envs/registry.h"
#include "scripted_env.h"

namespace mnrl::envs {
namespace {

// Random actions for each of `num_envs` envs, drawn from `rng`. Box values are scaled by 1.5,
// so some fall outside the bounds and clipping is exercised.
class RandomActions {
 public:
  RandomActions(const Space& space, std::size_t num_envs) : sampler_(space), num_envs_(num_envs) {}

  ActionBatch draw(core::Rng& rng) {
    indices_.clear();
    values_.clear();
    for (std::size_t i = 0; i < num_envs_; ++i) {
      const ActionRef action = sampler_.sample(rng);
      if (action.values == nullptr) {
        indices_.push_back(action.index);
        continue;
      }
      for (std::int64_t j = 0; j < action.size; ++j) values_.push_back(1.5f * action.values[j]);
    }
    if (values_.empty()) return {indices_.data(), nullptr, num_envs_};
    return {nullptr, values_.data(), values_.size()};
  }

 private:
  ActionSampler sampler_;
  std::size_t num_envs_;
  std::vector<std::int64_t> indices_;
  std::vector<float> values_;
};

template <class T>
bool same_bits(const T* a, const T* b, std::size_t count) {
  return std::memcmp(a, b, count * sizeof(T)) == 0;
}

// `count` observation elements at `a` and `b`, of either dtype, hold the same bits.
bool same_observations(core::ConstTypedPtr a, core::ConstTypedPtr b, std::size_t count) {
  return a.dtype() == b.dtype() &&
         std::memcmp(a.data(), b.data(), count * core::element_bytes(a.dtype())) == 0;
}

// Steps a serial and a threaded vector env built from `options` side by side with the same
// actions and expects every output to be bit-identical at every step.
void expect_identical(EnvOptions options, int num_threads, int steps) {
  options.num_threads = 1;
  auto serial = make_vector_env(options, 42);
  options.num_threads = num_threads;
  auto threaded = make_vector_env(options, 42);
  threaded->always_thread();  // these envs are cheap enough to be stepped serially otherwise
  const auto n = static_cast<std::size_t>(serial->num_envs());
  const auto rows = n * static_cast<std::size_t>(serial->observation_size());
  core::Rng rng(7);
  RandomActions actions(serial->spec().action_space, n);
  serial->reset();
  threaded->reset();
  ASSERT_TRUE(same_observations(serial->observations(), threaded->observations(), rows));
  int episodes = 0;
  for (int t = 0; t < steps; ++t) {
    const ActionBatch batch = actions.draw(rng);
    serial->step(batch);
    threaded->step(batch);
    ASSERT_TRUE(same_observations(serial->observations(), threaded->observations(), rows))
        << "step " << t;
    ASSERT_TRUE(same_bits(serial->rewards(), threaded->rewards(), n)) << "step " << t;
    ASSERT_TRUE(same_bits(serial->terminated(), threaded->terminated(), n)) << "step " << t;
    ASSERT_TRUE(same_bits(serial->truncated(), threaded->truncated(), n)) << "step " << t;
    for (std::size_t i = 0; i < n; ++i) {
      if (!serial->terminated()[i] && !serial->truncated()[i]) continue;
      ++episodes;
      const auto size = static_cast<std::size_t>(serial->observation_size());
      ASSERT_TRUE(same_observations(serial->final_observations() + i * size,
                                    threaded->final_observations() + i * size, size));
      ASSERT_EQ(serial->episode_returns()[i], threaded->episode_returns()[i]);
      ASSERT_EQ(serial->episode_lengths()[i], threaded->episode_lengths()[i]);
    }
  }
  EXPECT_GT(episodes, 0) << options.id << ": no episode ended; the test would miss resets";
}

TEST(ThreadedVectorEnvTest, EveryBuiltInEnvMatchesSerialBitForBit) {
  for (const std::string& id : Registry::global().ids()) {
    SCOPED_TRACE(id);
    EnvOptions options;
    options.id = id;
    options.num_envs = 7;
    options.max_episode_steps = 60;  // many resets in few steps
    expect_identical(options, 3, 400);
  }
}

TEST(ThreadedVectorEnvTest, NormalizationWrappersMatchSerialBitForBit) {
  EnvOptions options;
  options.num_envs = 9;
  options.wrappers.resize(3);
  options.wrappers[0].type = "frame_stack";
  options.wrappers[0].num_frames = 2;
  options.wrappers[1].type = "normalize_observation";
  options.wrappers[2].type = "normalize_reward";
  expect_identical(options, 2, 2000);
}

TEST(ThreadedVectorEnvTest, StressManyEnvsManyResetsRepeated) {
  EnvOptions options;
  options.num_envs = 64;
  options.max_episode_steps = 17;
  for (int threads : {2, 4, 64, 100}) {
    SCOPED_TRACE(threads);
    expect_identical(options, threads, 5000);
  }
}

TEST(ThreadedVectorEnvTest, MoreThreadsThanEnvsStartsOnlyOnePerEnv) {
  EnvOptions options;
  options.num_envs = 3;
  options.num_threads = 8;
  EXPECT_EQ(make_vector_env(options, 0)->num_threads(), 3);
  options.num_threads = 0;
  EXPECT_THROW(make_vector_env(options, 0), std::invalid_argument);
}

// Throws from step() at its `fail_at`-th step.
class FailingEnv final : public Env {
 public:
  explicit FailingEnv(int fail_at) : fail_at_(fail_at) {}
  const EnvSpec& spec() const override { return inner_.spec(); }
  void reset(core::TypedPtr out, std::optional<std::uint64_t> seed) override {
    float* observation = out.floats();
    inner_.reset(observation, seed);
  }
  StepResult step(const ActionRef& action, core::TypedPtr out) override {
    float* observation = out.floats();
    if (++steps_ == fail_at_)
      throw std::runtime_error("env broke at step " + std::to_string(steps_));
    return inner_.step(action, observation);
  }

 private:
  test_envs::ScriptedEnv inner_;
  int fail_at_;
  int steps_ = 0;
};

TEST(ThreadedVectorEnvTest, AnEnvFailureOnAWorkerReachesTheCallerAndRequiresReset) {
  std::vector<std::unique_ptr<Env>> envs;
  for (int i = 0; i < 6; ++i) envs.push_back(std::make_unique<FailingEnv>(i == 4 ? 3 : 0));
  VectorEnv vec(std::move(envs), 0, 3);
  vec.always_thread();  // the failing env is stepped on a worker
  vec.reset();
  const std::vector<std::int64_t> actions(6, 0);
  vec.step({actions.data(), nullptr, 6});
  vec.step({actions.data(), nullptr, 6});
  try {
    vec.step({actions.data(), nullptr, 6});
    FAIL() << "expected the env's exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "env broke at step 3");
  }
  try {
    vec.step({actions.data(), nullptr, 6});
    FAIL() << "expected std::logic_error";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("after an env failed; call reset() first"),
              std::string::npos)
        << e.what();
  }
  vec.reset();
  EXPECT_NO_THROW(vec.step({actions.data(), nullptr, 6}));
}

TEST(ThreadedVectorEnvTest, AnInvalidActionIsRejectedBeforeAnyEnvSteps) {
  std::vector<std::unique_ptr<Env>> envs;
  for (int i = 0; i < 4; ++i)
    envs.push_back(std::make_unique<test_envs::ScriptedEnv>(0, "Scripted-v0", 2));
  VectorEnv vec(std::move(envs), 0, 2);
  vec.reset();
  const std::vector<float> before(vec.observations().floats(), vec.observations().floats() + 12);
  std::vector<float> values(8, 0.5f);
  values[5] = std::numeric_limits<float>::quiet_NaN();
  try {
    vec.step({nullptr, values.data(), values.size()});
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(
        std::string(e.what()).find("VectorEnv env 2: Scripted-v0: invalid action: value 1 is NaN"),
        std::string::npos)
        << e.what();
  }
  EXPECT_EQ(std::vector<float>(vec.observations().floats(), vec.observations().floats() + 12),
            before);
  try {
    vec.step({nullptr, values.data(), 7});
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("expected 8 action values (4 envs"), std::string::npos)
        << e.what();
  }
  values[5] = 0.0f;
  EXPECT_NO_THROW(vec.step({nullptr, values.data(), values.size()}));
}

}  // namespace
}  // namespace mnrl::envs
