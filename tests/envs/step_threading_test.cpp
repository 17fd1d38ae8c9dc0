// A vector env hands its envs to threads only when their steps cost enough to pay for it.
#include "envs/step_threading.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "envs/vector_env.h"
#include "scripted_env.h"

namespace mnrl::envs {
namespace {

using std::chrono::microseconds;

TEST(StepThreadingTest, EveryThirtySecondStepIsMeasured) {
  StepThreading threading;
  for (int step = 0; step < 100; ++step) {
    EXPECT_EQ(threading.measure_next(), step % 32 == 0) << "step " << step;
    if (threading.measure_next()) {
      threading.record(microseconds(1));
    } else {
      threading.unmeasured();
    }
  }
}

TEST(StepThreadingTest, CheapStepsStayOnTheCallerAndCostlyOnesGoToTheThreads) {
  StepThreading threading;
  threading.record(microseconds(3));
  EXPECT_FALSE(threading.threaded());
  StepThreading costly;
  costly.record(microseconds(400));
  EXPECT_TRUE(costly.threaded());
}

TEST(StepThreadingTest, TheLeastOfTheLastFourMeasurementsDecides) {
  StepThreading threading;
  threading.record(microseconds(400));
  ASSERT_TRUE(threading.threaded());
  // A cheap step is what the envs cost: serial at once.
  threading.record(microseconds(2));
  EXPECT_FALSE(threading.threaded());
  // A step the OS interrupted reads long: one such measurement changes nothing.
  threading.record(microseconds(5000));
  EXPECT_FALSE(threading.threaded());
  // Envs that became costly are threaded once the cheap measurement has left the window.
  for (int i = 0; i < 2; ++i) threading.record(microseconds(400));
  EXPECT_FALSE(threading.threaded());
  threading.record(microseconds(400));
  EXPECT_TRUE(threading.threaded());
  threading.always_thread();
  EXPECT_FALSE(threading.measure_next());
}

TEST(StepThreadingTest, AlwaysThreadTakesEveryStepToTheThreads) {
  StepThreading threading;
  threading.record(microseconds(1));
  threading.always_thread();
  EXPECT_TRUE(threading.threaded());
  EXPECT_FALSE(threading.measure_next());
}

// A ScriptedEnv that works `work` per step (a busy wait, as a physics step computes) and
// records the threads that stepped it.
class TimedEnv final : public Env {
 public:
  TimedEnv(microseconds work, std::set<std::thread::id>& threads, std::mutex& mutex)
      : work_(work), threads_(threads), mutex_(mutex) {}
  const EnvSpec& spec() const override { return inner_.spec(); }
  void reset(core::TypedPtr out, std::optional<std::uint64_t> seed) override {
    inner_.reset(out, seed);
  }
  StepResult step(const ActionRef& action, core::TypedPtr out) override {
    const auto until = std::chrono::steady_clock::now() + work_;
    while (std::chrono::steady_clock::now() < until) {
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      threads_.insert(std::this_thread::get_id());
    }
    return inner_.step(action, out);
  }

 private:
  test_envs::ScriptedEnv inner_;
  microseconds work_;
  std::set<std::thread::id>& threads_;
  std::mutex& mutex_;
};

// 8 envs of `work` each, stepped by a vector env with 2 threads in spans of 160 steps (5
// measurements each): the threads that stepped the envs in the first span after the first
// that `done` accepts, or in the last span (of 20).
std::set<std::thread::id> stepping_threads(
    microseconds work, const std::function<bool(const std::set<std::thread::id>&)>& done) {
  std::set<std::thread::id> threads;
  std::mutex mutex;
  std::vector<std::unique_ptr<Env>> envs;
  for (int i = 0; i < 8; ++i) envs.push_back(std::make_unique<TimedEnv>(work, threads, mutex));
  VectorEnv vec(std::move(envs), 0, 2);
  vec.reset();
  const std::vector<std::int64_t> actions(8, 0);
  for (int span = 0; span < 20; ++span) {
    threads.clear();
    for (int step = 0; step < 160; ++step) vec.step({actions.data(), nullptr, 8});
    if (span > 0 && done(threads)) break;
  }
  return threads;
}

TEST(StepThreadingTest, AVectorEnvStepsCheapEnvsOnTheCallerAlone) {
  // The decision rests on wall-clock measurements: on a loaded machine every measurement of a
  // span can read long (the unit tests above pin the rule itself), so a span in 20 suffices.
  const std::set<std::thread::id> caller{std::this_thread::get_id()};
  const auto threads = stepping_threads(
      microseconds(0), [&caller](const auto& seen) { return seen == caller; });
  EXPECT_EQ(threads, caller);
}

TEST(StepThreadingTest, AVectorEnvHandsCostlyEnvsToItsThreads) {
  // 8 envs x 50 us = 400 us a step, well above StepThreading::kThreadedFrom.
  // A measurement never reads shorter than the work, so every span after the first threads.
  const auto threads =
      stepping_threads(microseconds(50), [](const auto& seen) { return seen.size() == 2; });
  EXPECT_EQ(threads.size(), 2u);
}

}  // namespace
}  // namespace mnrl::envs
