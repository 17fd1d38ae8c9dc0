#include "experiments/single_learner_training.h"

#include <chrono>

#include "core/rng.h"
#include "core/stop_signal.h"
#include "experiments/agent_factory.h"
#include "experiments/learner_actor.h"
#include "experiments/seed_streams.h"

namespace mnrl::experiments {

TrainingResult train_single_learner(const ExperimentOptions& options, MetricsSink& metrics,
                                    const CheckpointSettings* checkpoints) {
  const auto seed = static_cast<std::uint64_t>(options.seed);
  set_compute_threads(options.train.threads);
  auto envs = envs::make_vector_env(options.env, core::derive_seed(seed, kTrainEnvStream));
  Evaluator evaluator(options.env, options.train.eval_episodes,
                      core::derive_seed(seed, kEvalEnvStream), *envs);
  auto agent = make_agent(options, envs->spec());

  LearnerActor actor(*agent, *envs);
  const std::int64_t total_steps = options.train.total_steps;
  const std::int64_t eval_interval = options.train.eval_interval;
  LoopState loop;
  loop.next_eval = eval_interval > 0 ? eval_interval : total_steps + 1;
  const TrainingParts parts{{agent.get()}, {envs.get()}, &evaluator, nullptr};
  if (checkpoints && checkpoints->resume_from) {
    if (!resume_from_checkpoint(*checkpoints, options, loop, parts)) {
      // Envs that cannot save their state start new episodes, seeded apart from the first ones.
      envs->reseed(core::derive_seed(core::derive_seed(seed, kTrainEnvStream),
                                     static_cast<std::uint64_t>(loop.step)));
      envs->reset();
    }
  } else {
    envs->reset();
  }
  CheckpointSchedule schedule(checkpoints, options, loop);

  const std::int64_t first_step = loop.step;
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const auto write_checkpoint = [&] {
    metrics.flush();  // the metrics up to a checkpoint are on disk with it
    LoopState now = loop;
    now.seconds += elapsed();
    schedule.write(now, parts);
  };
  TrainingResult result;
  std::int64_t& step = loop.step;

  while (step < total_steps) {
    if (core::stop_requested()) {
      result.interrupted = true;
      break;
    }
    actor.step();
    step += actor.num_envs();
    actor.report_episodes(metrics, step);
    if (actor.update_if_ready(metrics, {step, total_steps})) {
      metrics.scalar(step, "charts/SPS", static_cast<double>(step - first_step) / elapsed());
    }
    if (step >= loop.next_eval && step < total_steps) {
      record_evaluation(metrics, step, evaluator.run(*agent));
      loop.next_eval += eval_interval;
    }
    if (schedule.due(step)) write_checkpoint();
    metrics.progress(step);
  }

  // A stopped run saves at once; a finished one is evaluated first.
  if (!result.interrupted) {
    result.final_evaluation = evaluator.run(*agent);
    record_evaluation(metrics, step, result.final_evaluation);
  }
  write_checkpoint();
  result.checkpoint = schedule.newest();
  result.steps = step;
  result.seconds = loop.seconds + elapsed();
  return result;
}

}  // namespace mnrl::experiments
