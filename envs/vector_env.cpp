#include "envs/vector_env.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

#include "core/rng.h"
#include "core/thread_pool.h"
#include "envs/action_check.h"
#include "envs/episode_statistics.h"
#include "envs/saved_state.h"

namespace mnrl::envs {
namespace {

// Checks that every env exists and has the first env's spec id and spaces; returns the
// validated spec of the first.
const EnvSpec& check_envs(const std::vector<std::unique_ptr<Env>>& envs) {
  if (envs.empty()) throw std::invalid_argument("VectorEnv needs at least one environment");
  for (std::size_t i = 0; i < envs.size(); ++i) {
    if (!envs[i]) throw std::invalid_argument("VectorEnv: env " + std::to_string(i) + " is null");
  }
  const EnvSpec& first = envs.front()->spec();
  first.validate();
  for (std::size_t i = 1; i < envs.size(); ++i) {
    const EnvSpec& spec = envs[i]->spec();
    if (spec.id != first.id || spec.observation_space != first.observation_space ||
        spec.action_space != first.action_space) {
      throw std::invalid_argument(
          "VectorEnv: env " + std::to_string(i) + " ('" + spec.id + "', observation " +
          describe(spec.observation_space) + ", action " + describe(spec.action_space) +
          ") differs from env 0 ('" + first.id + "', observation " +
          describe(first.observation_space) + ", action " + describe(first.action_space) + ")");
    }
  }
  return first;
}

}  // namespace

VectorEnv::VectorEnv(std::vector<std::unique_ptr<Env>> envs, std::uint64_t seed, int num_threads,
                     std::vector<std::unique_ptr<BatchTransform>> transforms)
    : envs_(std::move(envs)), seed_(seed), transforms_(std::move(transforms)) {
  const EnvSpec& spec = check_envs(envs_);
  if (num_threads < 1) {
    throw std::invalid_argument("VectorEnv(" + spec.id + "): num_threads is " +
                                std::to_string(num_threads) + ", must be >= 1");
  }
  observation_size_ = flat_size(spec.observation_space);
  action_size_ = is_discrete(spec.action_space) ? 0 : flat_size(spec.action_space);
  const auto n = envs_.size();
  const auto row_size = static_cast<std::size_t>(observation_size_);
  observations_ = core::TypedRows(element_dtype(spec.observation_space), n, row_size);
  final_observations_ = core::TypedRows(element_dtype(spec.observation_space), n, row_size);
  rewards_.assign(n, 0.0f);
  terminated_.assign(n, 0);
  truncated_.assign(n, 0);
  pool_ = std::make_unique<core::ThreadPool>(
      static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(num_threads), n)));
  for (const auto& transform : transforms_) {
    if (!transform) throw std::invalid_argument("VectorEnv(" + spec.id + "): a transform is null");
  }
  if (!find_transform<EpisodeStatistics>()) {
    transforms_.insert(transforms_.begin(), std::make_unique<EpisodeStatistics>(n));
  }
  episode_statistics_ = find_transform<EpisodeStatistics>();
}

VectorEnv::~VectorEnv() = default;

int VectorEnv::num_threads() const { return pool_->num_threads(); }

const double* VectorEnv::episode_returns() const { return episode_statistics_->returns(); }

const std::int64_t* VectorEnv::episode_lengths() const { return episode_statistics_->lengths(); }

void VectorEnv::reset() {
  const auto reset_envs = [this](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      std::optional<std::uint64_t> seed;
      if (!seeded_) seed = core::derive_seed(seed_, i);
      envs_[i]->reset(observations_.row(i), seed);
    }
  };
  needs_reset_ = true;
  pool_->run(envs_.size(), reset_envs);
  seeded_ = true;
  std::fill(rewards_.begin(), rewards_.end(), 0.0f);
  std::fill(terminated_.begin(), terminated_.end(), std::uint8_t{0});
  std::fill(truncated_.begin(), truncated_.end(), std::uint8_t{0});
  const Batch outputs = batch();
  for (const auto& transform : transforms_) transform->on_reset(outputs);
  needs_reset_ = false;
}

void VectorEnv::step(const ActionBatch& actions) {
  if (needs_reset_) {
    throw std::logic_error(
        "VectorEnv(" + spec().id + "): step() " +
        (seeded_ ? "after an env failed; call reset() first" : "before reset()"));
  }
  check_actions(actions);
  needs_reset_ = true;  // until every env has stepped
  if (pool_->num_threads() == 1) {
    step_envs(actions, 0, envs_.size());
  } else if (step_threading_.measure_next()) {
    const auto start = std::chrono::steady_clock::now();
    step_envs(actions, 0, envs_.size());
    step_threading_.record(std::chrono::steady_clock::now() - start);
  } else {
    if (step_threading_.threaded()) {
      pool_->run(envs_.size(), [this, &actions](std::size_t begin, std::size_t end) {
        step_envs(actions, begin, end);
      });
    } else {
      step_envs(actions, 0, envs_.size());
    }
    step_threading_.unmeasured();
  }
  const Batch outputs = batch();
  for (const auto& transform : transforms_) transform->on_step(outputs);
  needs_reset_ = false;
}

bool VectorEnv::saves_state() const {
  return std::all_of(envs_.begin(), envs_.end(),
                     [](const auto& env) { return envs::saves_state(*env); });
}

void VectorEnv::save_state(core::StateWriter& out) const {
  if (needs_reset_)
    throw std::logic_error("VectorEnv(" + spec().id + "): save_state() before reset()");
  out.tag("vector_env");
  out.text(spec().id);
  out.value(static_cast<std::int64_t>(envs_.size()));
  const bool envs_saved = saves_state();
  out.value(envs_saved);
  if (envs_saved) {
    for (const auto& env : envs_) save_env_state(*env, out);
    observations_.save_rows(out, envs_.size());
    final_observations_.save_rows(out, envs_.size());
    out.values(rewards_);
    out.values(terminated_);
    out.values(truncated_);
  }
  for (const auto& transform : transforms_) transform->save_state(out);
}

bool VectorEnv::load_state(core::StateReader& in) {
  in.expect_tag("vector_env");
  const std::string id = in.text();
  const auto num_envs = in.value<std::int64_t>();
  if (id != spec().id || num_envs != static_cast<std::int64_t>(envs_.size())) {
    in.fail("a vector env of " + std::to_string(num_envs) + " x " + id + ", expected " +
            std::to_string(envs_.size()) + " x " + spec().id);
  }
  const bool envs_saved = in.value<bool>();
  if (envs_saved && !saves_state()) in.fail("env states that " + spec().id + " cannot load");
  needs_reset_ = true;  // until everything is back
  if (envs_saved) {
    for (const auto& env : envs_) load_env_state(*env, in);
    observations_.load_rows(in, envs_.size());
    final_observations_.load_rows(in, envs_.size());
    in.values(rewards_);
    in.values(terminated_);
    in.values(truncated_);
  }
  for (const auto& transform : transforms_) transform->load_state(in);
  if (envs_saved) seeded_ = true;  // otherwise the next reset() seeds the envs
  needs_reset_ = !envs_saved;
  return envs_saved;
}

void VectorEnv::reseed(std::uint64_t seed) {
  seed_ = seed;
  seeded_ = false;
}

// Runs on a pool thread: touches only envs [begin, end) and their rows.
void VectorEnv::step_envs(const ActionBatch& actions, std::size_t begin, std::size_t end) {
  for (std::size_t i = begin; i < end; ++i) {
    const core::TypedPtr observation = observations_.row(i);
    const StepResult result = envs_[i]->step(action_for(actions, i), observation);
    rewards_[i] = static_cast<float>(result.reward);
    terminated_[i] = result.terminated;
    truncated_[i] = result.truncated;
    if (result.terminated || result.truncated) {
      // Same-step auto-reset: keep the last observation, then start the next episode in place.
      final_observations_.copy_row(i, observation);
      envs_[i]->reset(observation, std::nullopt);
    }
  }
}

Batch VectorEnv::batch() {
  return {envs_.size(),         static_cast<std::size_t>(observation_size_),
          observations_.data(), final_observations_.data(),
          rewards_.data(),      terminated_.data(),
          truncated_.data()};
}

ActionRef VectorEnv::action_for(const ActionBatch& actions, std::size_t env) const {
  if (action_size_ == 0) return {actions.indices[env], nullptr, 0};
  return {0, actions.values + env * static_cast<std::size_t>(action_size_), action_size_};
}

// Checks the whole batch before any env steps, so a bad action leaves every env as it was.
void VectorEnv::check_actions(const ActionBatch& actions) const {
  const bool discrete = action_size_ == 0;
  const std::size_t expected = envs_.size() * static_cast<std::size_t>(discrete ? 1 : action_size_);
  if ((discrete ? actions.indices == nullptr : actions.values == nullptr) ||
      actions.size != expected) {
    throw std::invalid_argument(
        "VectorEnv(" + spec().id + "): expected " + std::to_string(expected) +
        (discrete ? " action indices" : " action values") + " (" + std::to_string(envs_.size()) +
        " envs, action space " + describe(spec().action_space) + "), got " +
        std::to_string(actions.size) +
        ((discrete ? actions.indices : static_cast<const void*>(actions.values)) ? "" : " (null)"));
  }
  if (const auto* space = std::get_if<Discrete>(&spec().action_space)) {
    // The common case in one tight loop; check_action() words the error.
    bool valid = true;
    for (std::size_t i = 0; i < envs_.size(); ++i) {
      valid &=
          static_cast<std::uint64_t>(actions.indices[i]) < static_cast<std::uint64_t>(space->n);
    }
    if (valid) return;
  }
  for (std::size_t i = 0; i < envs_.size(); ++i) {
    try {
      check_action(spec(), action_for(actions, i));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("VectorEnv env " + std::to_string(i) + ": " + e.what());
    }
  }
}

}  // namespace mnrl::envs
