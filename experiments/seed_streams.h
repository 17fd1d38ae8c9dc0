#pragma once

#include <cstdint>

namespace mnrl::experiments {

// Independent core::derive_seed() streams of the experiment seed, one per consumer.
constexpr std::uint64_t kTrainEnvStream = 1;     // the training envs of a single learner
constexpr std::uint64_t kEvalEnvStream = 2;      // the evaluation envs
constexpr std::uint64_t kExplorationStream = 3;  // DQN's epsilon-greedy and replay sampling
constexpr std::uint64_t kWorkerEnvStream = 16;   // A3C worker k's envs: stream 16 + k

}  // namespace mnrl::experiments
