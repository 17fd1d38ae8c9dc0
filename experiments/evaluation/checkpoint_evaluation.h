#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agents/agent.h"
#include "envs/vector_env.h"
#include "experiments/checkpoints/checkpoint.h"
#include "experiments/config/experiment_options.h"
#include "experiments/evaluation/evaluator.h"

namespace mnrl::experiments {

class RestoredPolicy;

// A checkpoint's policy, rebuilt from the checkpoint's own config.yaml: its agents, as its
// topology restores them (TopologyKind::restore_policy; A3C: the workers and their shared
// model), and training envs seeded from `seed` that hold the checkpoint's observation
// statistics.
class CheckpointPolicy {
 public:
  // Opens `target`: a checkpoint directory, or a run directory and then its newest checkpoint
  // that opens, reporting each newer one that does not through `skipped`, and through `warned`
  // an env plugin that is not the one the run trained with (plugin_change_warning). Throws
  // CheckpointError or core::ConfigError for a target it cannot use.
  CheckpointPolicy(const std::filesystem::path& target, std::uint64_t seed,
                   const std::function<void(const std::string&)>& skipped,
                   const std::function<void(const std::string&)>& warned = {});
  ~CheckpointPolicy();

  const Checkpoint& checkpoint() const { return checkpoint_; }
  const ExperimentOptions& options() const { return options_; }
  // The training envs, for their spec and observation statistics.
  const envs::VectorEnv& envs() const { return *envs_; }
  // The agent that plays the policy (A3C: a snapshot of the shared model, as its training
  // evaluations play).
  agents::Agent& player();

 private:
  Checkpoint checkpoint_;
  ExperimentOptions options_;
  std::unique_ptr<envs::VectorEnv> envs_;
  std::unique_ptr<RestoredPolicy> policy_;
};

struct CheckpointEvaluation {
  std::filesystem::path checkpoint;  // the directory evaluated
  CheckpointInfo info;
  EvaluationResult result;
};

// Where `mnrl eval --video` writes its GIF, and how fast it plays.
struct VideoOptions {
  std::filesystem::path path;
  int frames_per_second = 25;
};

// `mnrl eval`: plays `episodes` episodes of the policy of `target` (see CheckpointPolicy) on
// envs seeded from `seed`, with the training envs' observation statistics. Greedy actions
// unless `stochastic`. With `video`, records the episodes as a GIF (EpisodeVideo).
CheckpointEvaluation evaluate_checkpoint(
    const std::filesystem::path& target, int episodes, std::uint64_t seed, bool stochastic,
    const std::function<void(const std::string&)>& skipped,
    const std::optional<VideoOptions>& video = std::nullopt,
    const std::function<void(const std::string&)>& warned = {});

struct PolicyExport {
  std::filesystem::path checkpoint;  // the directory exported
  CheckpointInfo info;
  std::string module;  // the TorchScript module's bytes (agents::Agent::export_greedy_policy)
};

// `mnrl export`: the greedy policy of `target` (see CheckpointPolicy) with the observation
// normalization of its envs (normalize_observation) folded in.
PolicyExport export_checkpoint_policy(const std::filesystem::path& target,
                                      const std::function<void(const std::string&)>& skipped,
                                      const std::function<void(const std::string&)>& warned = {});

// The training envs' observation normalization (normalize_observation), if they have one.
std::optional<nn::ObservationScale> observation_scale(const envs::VectorEnv& envs);

}  // namespace mnrl::experiments
