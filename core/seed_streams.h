#pragma once

#include <cstdint>

namespace mnrl::core {

// Independent derive_seed() streams of the experiment seed, one per consumer. The one list of
// them: a new consumer takes a new number here.
constexpr std::uint64_t kTrainEnvStream = 1;     // the training envs of a single learner
constexpr std::uint64_t kEvalEnvStream = 2;      // the evaluation envs
constexpr std::uint64_t kExplorationStream = 3;  // DQN's epsilon-greedy and replay sampling
constexpr std::uint64_t kWorkerEnvStream = 16;   // A3C worker k's envs: stream 16 + k
constexpr std::uint64_t kTorchStream = 0x746f7263;  // "torc": LibTorch's generator (initial weights)
constexpr std::uint64_t kRankStream = 0x72616e6b;   // "rank": rank r's experiment seed, stream + r
// Of an env's reset() seed rather than the experiment's: the flicker wrapper's draws.
constexpr std::uint64_t kFlickerStream = 0x666c6963;  // "flic"

}  // namespace mnrl::core
