#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "envs/vector_env.h"
#include "experiments/config/experiment_options.h"
#include "experiments/evaluation/evaluator.h"

namespace mnrl::experiments {

// The envs of rank `rank` > 0 of a job whose other ranks feed rank 0 (A3C's workers, IMPALA's
// actors), and its options, whose seed is this rank's own: seeded apart from every other
// rank's and from rank 0's, and, after a resume from the checkpoint at `resumed_at`, reseeded
// by that step (new episodes).
struct WorkerEnvs {
  ExperimentOptions options;
  std::unique_ptr<envs::VectorEnv> envs;
};
WorkerEnvs make_worker_envs(const ExperimentOptions& options, int rank,
                            std::optional<std::int64_t> resumed_at);

// Rank 0's envs in such a job, never stepped (the spec, the evaluator's wrappers, the envs a
// checkpoint's policy is evaluated on), and its evaluator; seeded as a single process's.
struct LearnerEnvs {
  std::unique_ptr<envs::VectorEnv> envs;
  std::unique_ptr<Evaluator> evaluator;
};
LearnerEnvs make_learner_envs(const envs::EnvOptions& env, std::int64_t seed, int eval_episodes);

}  // namespace mnrl::experiments
