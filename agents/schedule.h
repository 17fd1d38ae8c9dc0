#pragma once

#include <string>

namespace mnrl::agents {

// SB3's schedules: "linear" goes from `initial` to 0 as progress_remaining goes 1 -> 0;
// "constant" stays at `initial`.
inline double scheduled(double initial, const std::string& schedule, double remaining) {
  return schedule == "linear" ? initial * remaining : initial;
}

// SB3's exploration schedule: epsilon goes linearly from `initial` to `final` over the first
// `fraction` of training (`progress` 0 -> 1), then stays at `final`.
inline double linear_exploration(double initial, double final, double fraction, double progress) {
  if (fraction <= 0 || progress >= fraction) return final;
  return initial + (final - initial) * progress / fraction;
}

}  // namespace mnrl::agents
