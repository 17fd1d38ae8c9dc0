#include "agents/rollout_memory.h"

#include <algorithm>
#include <stdexcept>

namespace mnrl::agents {

RolloutMemory::RolloutMemory(std::int64_t n_steps, std::int64_t num_envs, std::int64_t state_size)
    : n_steps_(n_steps),
      num_envs_(num_envs),
      state_size_(state_size),
      states_(static_cast<std::size_t>(num_envs * state_size), 0.0f),
      episode_starts_(static_cast<std::size_t>(num_envs), 1.0f),
      rollout_states_(static_cast<std::size_t>(n_steps * num_envs * state_size)),
      rollout_episode_starts_(static_cast<std::size_t>(n_steps * num_envs)) {}

void RolloutMemory::record_step(std::int64_t step) {
  if (step < 0 || step >= n_steps_) throw std::logic_error("RolloutMemory: step past the rollout");
  std::copy(states_.begin(), states_.end(),
            rollout_states_.begin() + static_cast<std::ptrdiff_t>(step * num_envs_ * state_size_));
  std::copy(episode_starts_.begin(), episode_starts_.end(),
            rollout_episode_starts_.begin() + static_cast<std::ptrdiff_t>(step * num_envs_));
}

void RolloutMemory::steps_taken() {
  std::fill(episode_starts_.begin(), episode_starts_.end(), 0.0f);
}

void RolloutMemory::end_episodes(const std::uint8_t* terminated, const std::uint8_t* truncated) {
  for (std::int64_t i = 0; i < num_envs_; ++i) {
    if (!terminated[i] && !truncated[i]) continue;
    episode_starts_[static_cast<std::size_t>(i)] = 1.0f;
    std::fill_n(states_.begin() + static_cast<std::ptrdiff_t>(i * state_size_), state_size_, 0.0f);
  }
}

void RolloutMemory::pack(float* out) const {
  out = std::copy_n(rollout_states_.begin(), num_envs_ * state_size_, out);
  out = std::copy(rollout_episode_starts_.begin(), rollout_episode_starts_.end(), out);
  std::copy(episode_starts_.begin(), episode_starts_.end(), out);
}

void RolloutMemory::unpack_envs(const float* in, std::int64_t envs, std::int64_t first_env) {
  if (first_env < 0 || first_env + envs > num_envs_) {
    throw std::logic_error("RolloutMemory: unpacked envs past the rollout's");
  }
  std::copy_n(in, envs * state_size_, rollout_states_.begin() + first_env * state_size_);
  in += envs * state_size_;
  for (std::int64_t step = 0; step < n_steps_; ++step, in += envs) {
    std::copy_n(in, envs, rollout_episode_starts_.begin() + step * num_envs_ + first_env);
  }
  std::copy_n(in, envs, episode_starts_.begin() + first_env);
}

}  // namespace mnrl::agents
