#include "experiments/single_learner_training.h"

#include <chrono>

#include "core/rng.h"
#include "core/stop_signal.h"
#include "experiments/agent_factory.h"
#include "experiments/learner_actor.h"
#include "experiments/seed_streams.h"

namespace mnrl::experiments {

TrainingResult train_single_learner(const ExperimentOptions& options, MetricsSink& metrics) {
  const auto seed = static_cast<std::uint64_t>(options.seed);
  set_compute_threads(options.train.threads);
  auto envs = envs::make_vector_env(options.env, core::derive_seed(seed, kTrainEnvStream));
  Evaluator evaluator(options.env, options.train.eval_episodes,
                      core::derive_seed(seed, kEvalEnvStream), *envs);
  auto agent = make_agent(options, envs->spec());

  LearnerActor actor(*agent, *envs);
  const std::int64_t total_steps = options.train.total_steps;
  const std::int64_t eval_interval = options.train.eval_interval;
  std::int64_t next_eval = eval_interval > 0 ? eval_interval : total_steps + 1;

  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  TrainingResult result;
  std::int64_t& step = result.steps;

  envs->reset();
  while (step < total_steps) {
    if (core::stop_requested()) {
      result.interrupted = true;
      break;
    }
    actor.step();
    step += actor.num_envs();
    actor.report_episodes(metrics, step);
    if (actor.update_if_ready(metrics, {step, total_steps})) {
      metrics.scalar(step, "charts/SPS", static_cast<double>(step) / elapsed());
    }
    if (step >= next_eval && step < total_steps) {
      record_evaluation(metrics, step, evaluator.run(*agent));
      next_eval += eval_interval;
    }
    metrics.progress(step);
  }

  result.final_evaluation = evaluator.run(*agent);
  record_evaluation(metrics, step, result.final_evaluation);
  result.seconds = elapsed();
  metrics.flush();
  return result;
}

}  // namespace mnrl::experiments
