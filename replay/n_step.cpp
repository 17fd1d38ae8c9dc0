#include "replay/n_step.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace mnrl::replay {

NStepAccumulator::NStepAccumulator(std::int64_t num_envs, int n, float gamma,
                                   std::int64_t observation_size, std::int64_t action_size,
                                   core::Dtype observation_dtype)
    : num_envs_(num_envs),
      n_(n),
      gamma_(gamma),
      observation_size_(observation_size),
      action_size_(action_size) {
  if (num_envs < 1 || n < 1 || observation_size < 1 || action_size < 1) {
    throw std::invalid_argument("NStepAccumulator: num_envs (" + std::to_string(num_envs) +
                                "), n (" + std::to_string(n) + "), observation_size (" +
                                std::to_string(observation_size) + ") and action_size (" +
                                std::to_string(action_size) + ") must be positive");
  }
  if (!(gamma >= 0.0f && gamma <= 1.0f)) {
    throw std::invalid_argument("NStepAccumulator: gamma " + std::to_string(gamma) +
                                " is not in [0, 1]");
  }
  const auto steps = static_cast<std::size_t>(num_envs) * static_cast<std::size_t>(n);
  observations_ =
      core::TypedRows(observation_dtype, steps, static_cast<std::size_t>(observation_size));
  actions_.resize(steps * static_cast<std::size_t>(action_size));
  rewards_.resize(steps);
  starts_.assign(static_cast<std::size_t>(num_envs), 0);
  counts_.assign(static_cast<std::size_t>(num_envs), 0);
}

std::size_t NStepAccumulator::ring_index(std::size_t env, int age) const {
  return env * static_cast<std::size_t>(n_) + static_cast<std::size_t>((starts_[env] + age) % n_);
}

void NStepAccumulator::emit_oldest(std::size_t env, core::ConstTypedPtr next_observation,
                                   bool terminated,
                                   const std::function<void(const Transition&)>& emit) {
  const int count = counts_[env];
  float reward = 0.0f;
  float discount = 1.0f;  // gamma^k after k rewards
  for (int k = 0; k < count; ++k) {
    reward += discount * rewards_[ring_index(env, k)];
    discount *= gamma_;
  }
  const std::size_t oldest = ring_index(env, 0);
  Transition transition;
  transition.observation = observations_.row(oldest);
  transition.action = &actions_[oldest * static_cast<std::size_t>(action_size_)];
  transition.reward = reward;
  transition.next_observation = next_observation;
  transition.terminated = terminated;
  transition.discount = discount;
  emit(transition);
  starts_[env] = (starts_[env] + 1) % n_;
  counts_[env] = count - 1;
}

void NStepAccumulator::add(core::ConstTypedPtr observations, const float* actions,
                           const float* rewards, core::ConstTypedPtr next_observations,
                           const std::uint8_t* terminated, const std::uint8_t* truncated,
                           core::ConstTypedPtr final_observations,
                           const std::function<void(const Transition&)>& emit) {
  const auto obs = static_cast<std::size_t>(observation_size_);
  const auto act = static_cast<std::size_t>(action_size_);
  for (std::size_t env = 0; env < static_cast<std::size_t>(num_envs_); ++env) {
    // Pending steps stay below n between calls, so there is room for this one.
    const std::size_t slot = ring_index(env, counts_[env]);
    observations_.copy_row(slot, observations + env * obs);
    std::copy_n(&actions[env * act], act, &actions_[slot * act]);
    rewards_[slot] = rewards[env];
    ++counts_[env];

    if (terminated[env] != 0 || truncated[env] != 0) {
      // next_observations[env] already starts the next episode: every pending step ends at
      // the final observation, bootstrapping from it unless the episode terminated.
      const core::ConstTypedPtr final_observation = final_observations + env * obs;
      while (counts_[env] > 0) {
        emit_oldest(env, final_observation, terminated[env] != 0, emit);
      }
      starts_[env] = 0;
    } else if (counts_[env] == n_) {
      emit_oldest(env, next_observations + env * obs, false, emit);
    }
  }
}

void NStepAccumulator::clear() {
  std::fill(starts_.begin(), starts_.end(), 0);
  std::fill(counts_.begin(), counts_.end(), 0);
}

void NStepAccumulator::save_state(core::StateWriter& out) const { core::save_fields(out, *this); }

void NStepAccumulator::load_state(core::StateReader& in) {
  core::load_fields(in, *this);
  for (std::size_t env = 0; env < starts_.size(); ++env) {
    if (starts_[env] < 0 || starts_[env] >= n_ || counts_[env] < 0 || counts_[env] >= n_) {
      in.fail("n-step ring position outside [0, " + std::to_string(n_) + ")");
    }
  }
}

}  // namespace mnrl::replay
