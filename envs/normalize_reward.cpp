#include "envs/normalize_reward.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mnrl::envs {

NormalizeReward::NormalizeReward(std::shared_ptr<RunningMeanStd> statistics, std::size_t num_envs,
                                 double gamma, double clip, double epsilon, bool update)
    : statistics_(std::move(statistics)), returns_(num_envs, 0.0), gamma_(gamma), clip_(clip),
      epsilon_(epsilon), update_(update) {
  if (!statistics_ || statistics_->size() != 1) {
    throw std::invalid_argument("NormalizeReward: needs statistics of one value (the return)");
  }
  if (!(gamma_ >= 0 && gamma_ <= 1) || !(clip_ > 0) || !(epsilon_ > 0)) {
    throw std::invalid_argument("NormalizeReward: needs gamma in [0, 1], clip > 0, epsilon > 0");
  }
}

void NormalizeReward::on_reset(const Batch&) { std::fill(returns_.begin(), returns_.end(), 0.0); }

void NormalizeReward::on_step(const Batch& batch) {
  // SB3's order: update the returns and their statistics, then scale, then forget the returns
  // of ended episodes.
  if (update_) {
    for (std::size_t i = 0; i < batch.num_envs; ++i) {
      returns_[i] = returns_[i] * gamma_ + batch.rewards[i];
    }
    statistics_->update(returns_.data(), batch.num_envs);
  }
  const double scale = std::sqrt(statistics_->var()[0] + epsilon_);
  for (std::size_t i = 0; i < batch.num_envs; ++i) {
    batch.rewards[i] = static_cast<float>(std::clamp(batch.rewards[i] / scale, -clip_, clip_));
    if (batch.ended(i)) returns_[i] = 0.0;
  }
}

void NormalizeReward::save_state(core::StateWriter& out) const { core::save_fields(out, *this); }

void NormalizeReward::load_state(core::StateReader& in) { core::load_fields(in, *this); }

}  // namespace mnrl::envs
