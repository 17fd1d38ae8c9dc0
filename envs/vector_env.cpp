#include "envs/vector_env.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/rng.h"
#include "envs/action_check.h"

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
      throw std::invalid_argument("VectorEnv: env " + std::to_string(i) + " ('" + spec.id +
                                  "', observation " + describe(spec.observation_space) +
                                  ", action " + describe(spec.action_space) +
                                  ") differs from env 0 ('" + first.id + "', observation " +
                                  describe(first.observation_space) + ", action " +
                                  describe(first.action_space) + ")");
    }
  }
  return first;
}

}  // namespace

VectorEnv::VectorEnv(std::vector<std::unique_ptr<Env>> envs, std::uint64_t seed)
    : envs_(std::move(envs)), seed_(seed) {
  const EnvSpec& spec = check_envs(envs_);
  observation_size_ = flat_size(spec.observation_space);
  action_size_ = is_discrete(spec.action_space) ? 0 : flat_size(spec.action_space);
  const auto n = envs_.size();
  const auto rows = n * static_cast<std::size_t>(observation_size_);
  observations_.assign(rows, 0.0f);
  final_observations_.assign(rows, 0.0f);
  rewards_.assign(n, 0.0f);
  terminated_.assign(n, 0);
  truncated_.assign(n, 0);
  running_returns_.assign(n, 0.0);
  finished_returns_.assign(n, 0.0);
  running_lengths_.assign(n, 0);
  finished_lengths_.assign(n, 0);
}

void VectorEnv::reset() {
  for (std::size_t i = 0; i < envs_.size(); ++i) {
    std::optional<std::uint64_t> seed;
    if (!seeded_) seed = core::derive_seed(seed_, i);
    envs_[i]->reset(observations_.data() + i * observation_size_, seed);
  }
  seeded_ = true;
  std::fill(rewards_.begin(), rewards_.end(), 0.0f);
  std::fill(terminated_.begin(), terminated_.end(), std::uint8_t{0});
  std::fill(truncated_.begin(), truncated_.end(), std::uint8_t{0});
  std::fill(running_returns_.begin(), running_returns_.end(), 0.0);
  std::fill(running_lengths_.begin(), running_lengths_.end(), std::int64_t{0});
}

void VectorEnv::step(const ActionBatch& actions) {
  if (!seeded_) throw std::logic_error("VectorEnv(" + spec().id + "): step() before reset()");
  check_actions(actions);
  for (std::size_t i = 0; i < envs_.size(); ++i) {
    const ActionRef action = action_for(actions, i);
    float* observation = observations_.data() + i * observation_size_;
    const StepResult result = envs_[i]->step(action, observation);
    rewards_[i] = static_cast<float>(result.reward);
    terminated_[i] = result.terminated;
    truncated_[i] = result.truncated;
    running_returns_[i] += result.reward;
    ++running_lengths_[i];
    if (result.terminated || result.truncated) {
      // Same-step auto-reset: keep the last observation, then start the next episode in place.
      std::copy(observation, observation + observation_size_,
                final_observations_.data() + i * observation_size_);
      finished_returns_[i] = running_returns_[i];
      finished_lengths_[i] = running_lengths_[i];
      running_returns_[i] = 0.0;
      running_lengths_[i] = 0;
      envs_[i]->reset(observation, std::nullopt);
    }
  }
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
        ((discrete ? actions.indices : static_cast<const void*>(actions.values)) ? ""
                                                                                  : " (null)"));
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
