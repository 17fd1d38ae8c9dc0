#pragma once

#include <string>

namespace mnrl::agents {

// SB3's schedules: "linear" goes from `initial` to 0 as progress_remaining goes 1 -> 0;
// "constant" stays at `initial`.
inline double scheduled(double initial, const std::string& schedule, double remaining) {
  return schedule == "linear" ? initial * remaining : initial;
}

}  // namespace mnrl::agents
