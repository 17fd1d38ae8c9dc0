#include "envs/episode_statistics.h"

#include <algorithm>

namespace mnrl::envs {

EpisodeStatistics::EpisodeStatistics(std::size_t num_envs)
    : running_returns_(num_envs, 0.0), finished_returns_(num_envs, 0.0),
      running_lengths_(num_envs, 0), finished_lengths_(num_envs, 0) {}

void EpisodeStatistics::on_reset(const Batch&) {
  std::fill(running_returns_.begin(), running_returns_.end(), 0.0);
  std::fill(running_lengths_.begin(), running_lengths_.end(), std::int64_t{0});
}

void EpisodeStatistics::on_step(const Batch& batch) {
  for (std::size_t i = 0; i < batch.num_envs; ++i) {
    running_returns_[i] += batch.rewards[i];
    ++running_lengths_[i];
    if (!batch.ended(i)) continue;
    finished_returns_[i] = running_returns_[i];
    finished_lengths_[i] = running_lengths_[i];
    running_returns_[i] = 0.0;
    running_lengths_[i] = 0;
  }
}

void EpisodeStatistics::save_state(core::StateWriter& out) const { core::save_fields(out, *this); }

void EpisodeStatistics::load_state(core::StateReader& in) { core::load_fields(in, *this); }

}  // namespace mnrl::envs
