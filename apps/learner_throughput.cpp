#include "apps/learner_throughput.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

#include "core/seed_streams.h"
#include "envs/vector_env.h"
#include "experiments/training/agent_factory.h"
#include "experiments/training/env_stepper.h"
#include "nn/row_major_gemm.h"

namespace mnrl::apps {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

}  // namespace

LearnerThroughput learner_throughput(const experiments::ExperimentOptions& options,
                                     double min_seconds) {
  experiments::set_compute_threads(options.train.threads);
  auto envs = envs::make_vector_env(
      options.env, core::derive_seed(static_cast<std::uint64_t>(options.seed),
                                     core::kTrainEnvStream));
  envs->reset();
  const auto agent = experiments::make_agent(options, envs->spec());
  experiments::EnvStepper stepper(*agent, *envs);

  LearnerThroughput measured;
  std::int64_t step = 0, steps_since_update = 0;
  bool warmed_up = false;
  while (measured.updates < 3 || measured.seconds < min_seconds) {
    // Validation puts the first update within train.total_steps (dqn.learning_starts, ...).
    if (step >= options.train.total_steps && !warmed_up) {
      throw std::logic_error("the agent was not ready for an update within train.total_steps");
    }
    stepper.step();
    step += stepper.num_envs();
    steps_since_update += stepper.num_envs();
    if (!agent->update_ready()) continue;
    const std::int64_t products_before = nn::row_major_gemm_multiply_adds();
    const auto start = Clock::now();
    experiments::check_losses_finite(
        agent->update({step, std::max(step, options.train.total_steps)}), step);
    const double seconds = seconds_between(start, Clock::now());
    if (warmed_up) {
      measured.updates += 1;
      measured.seconds += seconds;
      measured.env_steps += steps_since_update;
      measured.multiply_adds += nn::row_major_gemm_multiply_adds() - products_before;
    }
    warmed_up = true;
    steps_since_update = 0;
  }
  return measured;
}

double sgemm_gflops() {
  constexpr std::int64_t kSize = 256, kRepeats = 20;
  std::vector<float> a(kSize * kSize, 0.5f), b(kSize * kSize, 0.25f), c(kSize * kSize);
  double best = 0.0;
  for (int attempt = 0; attempt < 25; ++attempt) {
    const auto start = Clock::now();
    for (std::int64_t i = 0; i < kRepeats; ++i) {
      nn::row_major_gemm(false, false, kSize, kSize, kSize, a.data(), kSize, b.data(), kSize,
                         0.0f, c.data(), kSize);
    }
    const double seconds = seconds_between(start, Clock::now());
    best = std::max(best, 2e-9 * kSize * kSize * kSize * kRepeats / seconds);
  }
  return best;
}

}  // namespace mnrl::apps
