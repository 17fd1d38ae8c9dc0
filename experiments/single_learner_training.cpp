#include "experiments/single_learner_training.h"

#include <chrono>
#include <optional>

#include "core/rng.h"
#include "core/stop_signal.h"
#include "distributed/communicator.h"
#include "distributed/gradient_synchronizer.h"
#include "experiments/agent_factory.h"
#include "experiments/best_checkpoint.h"
#include "experiments/data_parallel.h"
#include "experiments/learner_actor.h"
#include "core/seed_streams.h"

namespace mnrl::experiments {

TrainingResult train_single_learner(const ExperimentOptions& experiment, MetricsSink& metrics,
                                    const CheckpointSettings* checkpoints,
                                    distributed::Communicator* communicator) {
  const int ranks = communicator ? communicator->size() : 1;
  const bool leader = !communicator || communicator->rank() == 0;
  const ExperimentOptions options =
      ranks > 1 ? options_for_rank(experiment, communicator->rank(), ranks) : experiment;
  const auto seed = static_cast<std::uint64_t>(options.seed);
  set_compute_threads(options.train.threads);
  auto envs = envs::make_vector_env(options.env, core::derive_seed(seed, core::kTrainEnvStream));
  // Only rank 0 evaluates: every rank holds the same policy.
  std::optional<Evaluator> evaluator;
  if (leader) {
    evaluator.emplace(options.env, options.train.eval_episodes,
                      core::derive_seed(seed, core::kEvalEnvStream), *envs);
  }
  ReplicatedAgent replica;
  std::optional<DataParallel> data_parallel;
  std::optional<ReducedMetrics> reduced;
  if (ranks > 1) {
    replica = make_replicated_agent(options, envs->spec(), *communicator);
    data_parallel.emplace(*communicator, options.distributed, *replica.synchronizer, *envs);
    reduced.emplace(*communicator, leader ? &metrics : nullptr);
  } else {
    replica.agent = make_agent(options, envs->spec());
  }
  agents::Agent& agent = *replica.agent;
  // Episodes and update statistics: as they come, or reduced over the ranks at each update.
  MetricsSink& learning_metrics = reduced ? static_cast<MetricsSink&>(*reduced) : metrics;

  LearnerActor actor(agent, *envs);
  // Steps count the env steps of every rank: all ranks step the same number of envs in
  // lockstep (each update is collective).
  const std::int64_t steps_per_step = static_cast<std::int64_t>(actor.num_envs()) * ranks;
  const std::int64_t total_steps = experiment.train.total_steps;
  const std::int64_t eval_interval = options.train.eval_interval;
  LoopState loop;
  loop.next_eval = eval_interval > 0 ? eval_interval : total_steps + 1;
  const TrainingParts parts{{&agent}, {envs.get()}, evaluator ? &*evaluator : nullptr, nullptr,
                            ranks > 1 ? communicator : nullptr};
  if (checkpoints && checkpoints->resume_from) {
    if (!resume_from_checkpoint(*checkpoints, experiment, loop, parts)) {
      // Envs that cannot save their state start new episodes, seeded apart from the first ones.
      envs->reseed(core::derive_seed(core::derive_seed(seed, core::kTrainEnvStream),
                                     static_cast<std::uint64_t>(loop.step)));
      envs->reset();
    }
  } else {
    envs->reset();
  }
  if (data_parallel) data_parallel->broadcast_from_leader();
  CheckpointSchedule schedule(checkpoints, experiment, loop);
  BestCheckpoint best(leader ? checkpoints : nullptr, experiment);
  const auto evaluate = [&](EvaluationResult* result) {
    EvaluationResult evaluation;
    if (!evaluate_and_record(*evaluator, agent, metrics, loop.step, &evaluation)) return false;
    best.offer(loop.step, evaluation, parts);
    if (result) *result = evaluation;
    return true;
  };

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
    const bool stop = data_parallel ? data_parallel->stop_agreed(core::stop_requested())
                                    : core::stop_requested();
    if (stop) {
      result.interrupted = true;
      break;
    }
    actor.step();
    step += steps_per_step;
    actor.report_episodes(learning_metrics, step);
    bool update = agent.update_ready();
    // A replay agent's readiness depends on its buffer, which fills at each rank's own pace;
    // the ranks update together or not at all.
    if (data_parallel && agent.has_replay()) update = data_parallel->all_agree(update);
    if (update) {
      actor.update(learning_metrics, {step, total_steps});
      if (data_parallel) {
        data_parallel->after_update();
        reduced->publish(step);
      }
      if (leader) {
        metrics.scalar(step, "charts/SPS", static_cast<double>(step - first_step) / elapsed());
      }
    }
    if (step >= loop.next_eval && step < total_steps) {
      if (leader) evaluate(nullptr);
      loop.next_eval += eval_interval;
    }
    if (schedule.due(step)) write_checkpoint();
    metrics.progress(step);
  }
  if (reduced) reduced->publish(step);  // the episodes since the last update

  // The checkpoint comes first: a stop during the final evaluation loses nothing.
  write_checkpoint();
  result.checkpoint = schedule.newest();
  if (!result.interrupted && leader && !evaluate(&result.final_evaluation)) {
    result.interrupted = result.stopped_in_final_evaluation = true;
  }
  result.best = best.best();
  result.steps = step;
  result.seconds = loop.seconds + elapsed();
  return result;
}

}  // namespace mnrl::experiments
