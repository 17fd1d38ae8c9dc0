#include "apps/env_throughput.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "core/rng.h"
#include "core/typed_rows.h"
#include "envs/action_sampler.h"

namespace mnrl::apps {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Random actions drawn before timing and cycled, so the RNG is not part of the measurement.
// Row r of the table is one env's action.
class RandomActionTable {
 public:
  static constexpr std::size_t kRows = 1 << 16;

  RandomActionTable(const envs::Space& space, std::size_t extra_rows) {
    envs::ActionSampler sampler(space);
    core::Rng rng(1);
    const std::size_t rows = kRows + extra_rows;
    if (envs::is_discrete(space)) {
      indices_.resize(rows);
      for (auto& index : indices_) index = sampler.sample(rng).index;
      return;
    }
    width_ = static_cast<std::size_t>(envs::flat_size(space));
    values_.reserve(rows * width_);
    for (std::size_t r = 0; r < rows; ++r) {
      const envs::ActionRef action = sampler.sample(rng);
      values_.insert(values_.end(), action.values, action.values + action.size);
    }
  }

  // The action of row `r` (r < kRows + extra_rows).
  envs::ActionRef row(std::size_t r) const {
    if (width_ == 0) return {indices_[r], nullptr, 0};
    return {0, values_.data() + r * width_, static_cast<std::int64_t>(width_)};
  }

  // `count` consecutive rows from `first`, as one batch.
  envs::ActionBatch rows(std::size_t first, std::size_t count) const {
    if (width_ == 0) return {indices_.data() + first, nullptr, count};
    return {nullptr, values_.data() + first * width_, count * width_};
  }

 private:
  std::vector<std::int64_t> indices_;
  std::vector<float> values_;
  std::size_t width_ = 0;  // 0 for Discrete
};

}  // namespace

double single_env_steps_per_second(const envs::EnvOptions& options, std::int64_t steps) {
  auto env = envs::make_env(options);
  const RandomActionTable actions(env->spec().action_space, 0);
  const envs::Space& space = env->spec().observation_space;
  core::TypedRows observation(envs::element_dtype(space), 1,
                              static_cast<std::size_t>(envs::flat_size(space)));
  env->reset(observation.row(0), 1);
  const auto start = std::chrono::steady_clock::now();
  for (std::int64_t i = 0; i < steps; ++i) {
    const auto r = env->step(actions.row(static_cast<std::size_t>(i) % RandomActionTable::kRows),
                             observation.row(0));
    if (r.terminated || r.truncated) env->reset(observation.row(0), std::nullopt);
  }
  return static_cast<double>(steps) / seconds_since(start);
}

double vector_env_steps_per_second(const envs::EnvOptions& options, std::int64_t steps) {
  auto envs = envs::make_vector_env(options, 1);
  const auto n = static_cast<std::size_t>(envs->num_envs());
  const RandomActionTable actions(envs->spec().action_space, n);
  envs->reset();
  const std::int64_t calls = std::max<std::int64_t>(1, steps / envs->num_envs());
  const auto start = std::chrono::steady_clock::now();
  for (std::int64_t i = 0; i < calls; ++i) {
    envs->step(actions.rows((static_cast<std::size_t>(i) * n) % RandomActionTable::kRows, n));
  }
  return static_cast<double>(calls * envs->num_envs()) / seconds_since(start);
}

}  // namespace mnrl::apps
