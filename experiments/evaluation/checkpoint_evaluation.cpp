#include "experiments/evaluation/checkpoint_evaluation.h"

#include <torch/utils.h>

#include <cmath>
#include <stdexcept>

#include "envs/normalize_observation.h"
#include "experiments/checkpoints/training_checkpoint.h"
#include "experiments/evaluation/episode_video.h"
#include "experiments/runs/run_info.h"
#include "experiments/training/agent_factory.h"
#include "experiments/training/topology_registry.h"
#include "experiments/training/train_device.h"

namespace mnrl::experiments {
namespace fs = std::filesystem;
namespace {

Checkpoint open_target(const fs::path& target,
                       const std::function<void(const std::string&)>& skipped) {
  std::error_code error;
  if (fs::exists(target / "manifest.yaml", error)) return Checkpoint::open(target);
  if (fs::is_directory(target / "checkpoints", error)) {
    return open_latest_checkpoint(target, skipped);
  }
  if (!fs::is_directory(target, error)) {
    throw CheckpointError("'" + target.string() + "': no such directory");
  }
  throw CheckpointError("'" + target.string() +
                        "' is neither a run directory with checkpoints nor a checkpoint "
                        "(no checkpoints/ and no manifest.yaml)");
}

// Says through `warned` when the env plugin in use is not the one the checkpoint's run trained
// with. A checkpoint copied out of its run has no run_info.yaml to compare with: nothing is said.
void check_plugin_unchanged(const Checkpoint& checkpoint, const ExperimentOptions& options,
                            const std::function<void(const std::string&)>& warned) {
  const fs::path run_dir = checkpoint.directory().parent_path().parent_path();
  std::error_code error;
  if (!warned || !fs::is_regular_file(run_dir / "run_info.yaml", error)) return;
  try {
    if (const auto warning =
            plugin_change_warning(read_run_info(run_dir), plugin_record(options.env.plugin))) {
      warned(*warning);
    }
  } catch (const std::exception& e) {
    warned("cannot tell whether the env plugin is the one the run trained with: " +
           std::string(e.what()));
  }
}

}  // namespace

CheckpointPolicy::CheckpointPolicy(const fs::path& target, std::uint64_t seed,
                                   const std::function<void(const std::string&)>& skipped,
                                   const std::function<void(const std::string&)>& warned)
    : checkpoint_(open_target(target, skipped)),
      // Its policy plays (and is exported) on the CPU wherever its run trained: its tensors
      // load on any device, and single episodes are what the CPU passes are fast at.
      options_(on_the_cpu(load_experiment(checkpoint_.path_of("config.yaml").string(), {}))) {
  check_checkpoint_matches(checkpoint_, options_.subject());
  check_plugin_unchanged(checkpoint_, options_, warned);
  set_compute_threads(options_.train.threads);

  envs_ = envs::make_vector_env(options_.env, seed);
  policy_ = topology_kind(options_.algorithm()).restore_policy(checkpoint_, options_, *envs_);
}

CheckpointPolicy::~CheckpointPolicy() = default;

agents::Agent& CheckpointPolicy::player() { return policy_->player(); }

CheckpointEvaluation evaluate_checkpoint(const fs::path& target, int episodes, std::uint64_t seed,
                                         bool stochastic,
                                         const std::function<void(const std::string&)>& skipped,
                                         const std::optional<VideoOptions>& video,
                                         const std::function<void(const std::string&)>& warned) {
  CheckpointPolicy policy(target, seed, skipped, warned);
  torch::manual_seed(seed);  // sampling, with --stochastic
  Evaluator evaluator(policy.options().env, episodes, seed, policy.envs());
  std::optional<EpisodeVideo> recording;
  if (video) recording.emplace(video->path.string(), video->frames_per_second);
  const std::optional<EvaluationResult> result =
      evaluator.run(policy.player(), stochastic, recording ? &*recording : nullptr);
  if (!result) throw std::runtime_error("evaluation stopped by a signal; nothing written");
  if (recording) recording->finish();
  return {policy.checkpoint().directory(), policy.checkpoint().info(), *result};
}

std::optional<nn::ObservationScale> observation_scale(const envs::VectorEnv& envs) {
  const auto* normalize = envs.find_transform<envs::NormalizeObservation>();
  if (!normalize) return std::nullopt;
  nn::ObservationScale scale;
  scale.mean = normalize->statistics()->mean();
  for (const double var : normalize->statistics()->var()) {
    scale.std.push_back(std::sqrt(var + normalize->epsilon()));
  }
  scale.clip = normalize->clip();
  return scale;
}

PolicyExport export_checkpoint_policy(const fs::path& target,
                                      const std::function<void(const std::string&)>& skipped,
                                      const std::function<void(const std::string&)>& warned) {
  CheckpointPolicy policy(target, 0, skipped, warned);
  return {policy.checkpoint().directory(), policy.checkpoint().info(),
          policy.player().export_greedy_policy(observation_scale(policy.envs()))};
}

}  // namespace mnrl::experiments
