#include "experiments/checkpoints/best_checkpoint.h"

namespace mnrl::experiments {
namespace fs = std::filesystem;

BestCheckpoint::BestCheckpoint(const CheckpointSettings* checkpoints,
                               const ExperimentOptions& options)
    : checkpoints_(options.checkpoint.save_best ? checkpoints : nullptr), options_(options) {
  if (!checkpoints_ || !checkpoints_->resume_from) return;
  const fs::path earlier = best_checkpoint_path(checkpoints_->run_dir);
  std::error_code missing;
  if (!fs::exists(earlier, missing)) return;
  try {
    const Checkpoint best = Checkpoint::open(earlier);
    if (best.info().eval_mean_return) {
      best_ = BestPolicy{earlier, best.info().step, *best.info().eval_mean_return};
    }
  } catch (const CheckpointError&) {
    // Damaged (a crash cannot do that: it is written as every checkpoint is): the next
    // evaluation replaces it.
  }
}

void BestCheckpoint::offer(std::int64_t step, const EvaluationResult& evaluation,
                           const TrainingParts& parts) {
  if (!checkpoints_ || (best_ && !(evaluation.mean_return > best_->mean_return))) return;
  CheckpointInfo info;
  info.step = step;
  info.eval_mean_return = evaluation.mean_return;
  const fs::path written =
      save_policy_checkpoint(checkpoints_->run_dir, kBestCheckpoint, options_, info, parts);
  best_ = BestPolicy{written, step, evaluation.mean_return};
}

}  // namespace mnrl::experiments
