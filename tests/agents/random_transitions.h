#pragma once

#include <cmath>
#include <cstdint>

#include "core/rng.h"
#include "replay/replay_buffer.h"

namespace mnrl::agents {

// `rows` random transitions with every kind of target: normal observations, rewards in
// [-2, 2], terminated rows (every fourth), n-step discounts (0.99^1..3) and importance weights
// below 1.
inline replay::TransitionBatch random_transitions(std::int64_t rows, std::int64_t observations,
                                                  std::int64_t actions, std::uint64_t seed) {
  core::Rng rng(seed);
  replay::TransitionBatch batch;
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < observations; ++j) {
      batch.observations.push_back(static_cast<float>(rng.normal()));
      batch.next_observations.push_back(static_cast<float>(rng.normal()));
    }
    batch.actions.push_back(static_cast<float>(rng.below(static_cast<std::uint64_t>(actions))));
    batch.rewards.push_back(static_cast<float>(rng.uniform(-2.0, 2.0)));
    batch.terminated.push_back(i % 4 == 3 ? 1 : 0);
    batch.discounts.push_back(static_cast<float>(std::pow(0.99, 1 + i % 3)));
    batch.weights.push_back(static_cast<float>(rng.uniform(0.3, 1.0)));
  }
  return batch;
}

}  // namespace mnrl::agents
