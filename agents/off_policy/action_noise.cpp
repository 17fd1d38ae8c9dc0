#include "agents/off_policy/action_noise.h"

#include <algorithm>
#include <cmath>

namespace mnrl::agents {

ActionNoise::ActionNoise(const ActionNoiseOptions& options, std::int64_t num_envs,
                         std::int64_t action_size)
    : kind_(options.action_noise == "normal"               ? Kind::normal
            : options.action_noise == "ornstein_uhlenbeck" ? Kind::ornstein_uhlenbeck
                                                           : Kind::none),
      options_(options),
      action_size_(action_size),
      previous_(static_cast<std::size_t>(num_envs * action_size), 0.0f) {}

void ActionNoise::perturb(float* actions, std::int64_t rows, core::Rng& rng) {
  if (kind_ == Kind::none) return;
  const double sigma = options_.action_noise_std;
  for (std::int64_t k = 0; k < rows * action_size_; ++k) {
    double noise = sigma * rng.normal();
    if (kind_ == Kind::ornstein_uhlenbeck) {
      // x += theta (0 - x) dt + sigma sqrt(dt) N(0, 1), SB3's discretization.
      const double x = previous_[static_cast<std::size_t>(k)];
      noise = x - options_.ou_theta * x * options_.ou_dt + std::sqrt(options_.ou_dt) * noise;
      previous_[static_cast<std::size_t>(k)] = static_cast<float>(noise);
    }
    actions[k] = std::clamp(actions[k] + static_cast<float>(noise), -1.0f, 1.0f);
  }
}

void ActionNoise::reset(std::int64_t env) {
  std::fill_n(previous_.begin() + env * action_size_, action_size_, 0.0f);
}

void ActionNoise::save_state(core::StateWriter& out) const { core::save_fields(out, *this); }

void ActionNoise::load_state(core::StateReader& in) { core::load_fields(in, *this); }

}  // namespace mnrl::agents
