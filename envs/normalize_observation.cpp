#include "envs/normalize_observation.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mnrl::envs {

NormalizeObservation::NormalizeObservation(std::shared_ptr<RunningMeanStd> statistics, double clip,
                                           double epsilon, bool update)
    : statistics_(std::move(statistics)), clip_(clip), epsilon_(epsilon), update_(update) {
  if (!statistics_) throw std::invalid_argument("NormalizeObservation: statistics are null");
  if (!(clip_ > 0) || !(epsilon_ > 0)) {
    throw std::invalid_argument("NormalizeObservation: clip and epsilon must be > 0");
  }
  refresh_scale();
}

void NormalizeObservation::on_reset(const Batch& batch) {
  if (update_) statistics_->update(batch.observations.floats(), batch.num_envs);
  refresh_scale();
  for (std::size_t i = 0; i < batch.num_envs; ++i) {
    normalize(batch.observations.floats() + i * batch.observation_size);
  }
}

void NormalizeObservation::on_step(const Batch& batch) {
  // As SB3: statistics take in the returned observations (first ones of new episodes
  // included), not the final observations of ended episodes.
  if (update_) statistics_->update(batch.observations.floats(), batch.num_envs);
  refresh_scale();
  for (std::size_t i = 0; i < batch.num_envs; ++i) {
    normalize(batch.observations.floats() + i * batch.observation_size);
    if (batch.ended(i)) normalize(batch.final_observations.floats() + i * batch.observation_size);
  }
}

void NormalizeObservation::refresh_scale() {
  const auto& var = statistics_->var();
  std_.resize(var.size());
  for (std::size_t j = 0; j < var.size(); ++j) std_[j] = std::sqrt(var[j] + epsilon_);
}

void NormalizeObservation::normalize(float* row) const {
  const auto& mean = statistics_->mean();
  for (std::size_t j = 0; j < std_.size(); ++j) {
    const double value = (static_cast<double>(row[j]) - mean[j]) / std_[j];
    row[j] = static_cast<float>(std::clamp(value, -clip_, clip_));
  }
}

void NormalizeObservation::save_state(core::StateWriter& out) const {
  core::save_fields(out, *this);
}

void NormalizeObservation::load_state(core::StateReader& in) {
  core::load_fields(in, *this);
  refresh_scale();
}

}  // namespace mnrl::envs
