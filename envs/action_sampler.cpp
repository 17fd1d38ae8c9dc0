#include "envs/action_sampler.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace mnrl::envs {

ActionSampler::ActionSampler(Space space)
    : space_(std::move(space)),
      values_(is_discrete(space_) ? 0 : static_cast<std::size_t>(flat_size(space_))) {}

ActionRef ActionSampler::sample(core::Rng& rng) {
  if (const auto* discrete = std::get_if<Discrete>(&space_)) {
    return {static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(discrete->n))), nullptr,
            0};
  }
  const auto& box = std::get<Box>(space_);
  for (std::size_t i = 0; i < values_.size(); ++i) {
    const double low = box.low[i];
    const double high = box.high[i];
    double value;
    if (std::isfinite(low) && std::isfinite(high)) {
      value = rng.uniform(low, high);
    } else if (std::isfinite(low)) {
      value = low + rng.uniform();
    } else if (std::isfinite(high)) {
      value = high - rng.uniform();
    } else {
      value = rng.uniform(-1.0, 1.0);
    }
    values_[i] = std::clamp(static_cast<float>(value), box.low[i], box.high[i]);
  }
  return {0, values_.data(), static_cast<std::int64_t>(values_.size())};
}

}  // namespace mnrl::envs
