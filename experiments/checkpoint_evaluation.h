#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "experiments/checkpoint.h"
#include "experiments/evaluator.h"

namespace mnrl::experiments {

struct CheckpointEvaluation {
  std::filesystem::path checkpoint;  // the directory evaluated
  CheckpointInfo info;
  EvaluationResult result;
};

// `mnrl eval`: opens `target` (a checkpoint directory, or a run directory and then its newest
// checkpoint that opens, reporting each newer one that does not through `skipped`), rebuilds
// the agent from the checkpoint's own config.yaml, and plays `episodes` episodes on envs seeded
// from `seed`, with the training envs' observation statistics. Greedy actions unless
// `stochastic`. Throws CheckpointError or core::ConfigError for a target it cannot use.
CheckpointEvaluation evaluate_checkpoint(const std::filesystem::path& target, int episodes,
                                         std::uint64_t seed, bool stochastic,
                                         const std::function<void(const std::string&)>& skipped);

}  // namespace mnrl::experiments
