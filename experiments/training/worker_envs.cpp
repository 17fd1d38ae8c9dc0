#include "experiments/training/worker_envs.h"

#include "core/rng.h"
#include "core/seed_streams.h"

namespace mnrl::experiments {

WorkerEnvs make_worker_envs(const ExperimentOptions& options, int rank,
                            std::optional<std::int64_t> resumed_at) {
  WorkerEnvs worker{options, nullptr};
  worker.options.seed = static_cast<std::int64_t>(
      core::derive_seed(static_cast<std::uint64_t>(options.seed),
                        core::kWorkerEnvStream + static_cast<std::uint64_t>(rank - 1)) >> 1);
  const auto seed = static_cast<std::uint64_t>(worker.options.seed);
  worker.envs = envs::make_vector_env(worker.options.env, seed);
  if (resumed_at) {
    worker.envs->reseed(core::derive_seed(seed, static_cast<std::uint64_t>(*resumed_at)));
  }
  return worker;
}

LearnerEnvs make_learner_envs(const envs::EnvOptions& env, std::int64_t seed, int eval_episodes) {
  const auto root = static_cast<std::uint64_t>(seed);
  LearnerEnvs learner;
  learner.envs = envs::make_vector_env(env, core::derive_seed(root, core::kTrainEnvStream));
  learner.evaluator = std::make_unique<Evaluator>(
      env, eval_episodes, core::derive_seed(root, core::kEvalEnvStream), *learner.envs);
  return learner;
}

}  // namespace mnrl::experiments
