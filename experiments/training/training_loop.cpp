#include "experiments/training/training_loop.h"

#include <algorithm>

namespace mnrl::experiments {

TrainingResult run_training_loop(TrainingTopology& topology, const ExperimentOptions& options,
                                 const CheckpointSettings* checkpoints) {
  const std::int64_t total_steps = options.train.total_steps;
  const std::int64_t eval_interval = options.train.eval_interval;
  const std::optional<double> stop_at_return = options.train.stop_at_return;
  const TrainingParts& parts = topology.parts();
  MetricsSink& metrics = topology.metrics();
  LoopState loop;
  loop.next_eval = eval_interval > 0 ? eval_interval : total_steps + 1;
  const bool resumed = checkpoints && checkpoints->resume_from;
  if (!resumed || !resume_from_checkpoint(*checkpoints, options, loop, parts)) {
    // Envs that cannot save their state start new episodes, seeded apart from the first ones.
    topology.start_episodes(resumed ? std::optional<std::int64_t>(loop.step) : std::nullopt);
  }
  CheckpointSchedule schedule(checkpoints, options, loop);
  BestCheckpoint best(topology.leader() ? checkpoints : nullptr, options);
  const auto evaluate = [&](EvaluationResult* result) {
    EvaluationResult evaluation;
    if (!evaluate_and_record(*parts.evaluator, topology.evaluation_agent(), metrics, loop.step,
                             &evaluation)) {
      return false;
    }
    topology.while_consistent([&] { best.offer(loop.step, evaluation, topology.evaluated_policy()); });
    if (result) *result = evaluation;
    return true;
  };

  TrainingClock clock;
  clock.first_step = loop.step;
  const auto write_checkpoint = [&] {
    metrics.flush();  // the metrics up to a checkpoint are on disk with it
    LoopState now = loop;
    now.seconds += clock.elapsed();
    schedule.write(now, parts);
  };
  topology.begin(clock);
  TrainingResult result;
  while (loop.step < total_steps) {
    const Advance advance =
        topology.advance(std::min({loop.next_eval, schedule.next(), total_steps}));
    loop.step = advance.step;
    if (advance.stopped) break;
    if (loop.step >= loop.next_eval && loop.step < total_steps) {
      EvaluationResult evaluation;
      const bool reached = parts.evaluator && evaluate(&evaluation) && stop_at_return &&
                           evaluation.mean_return >= *stop_at_return;
      loop.next_eval += eval_interval;
      // Every rank running this loop evaluated here in step; only the leader knows the return.
      if (stop_at_return && topology.agree_with_leader(reached)) {
        result.stopped_early = TrainingResult::EarlyStop{loop.step, evaluation.mean_return};
        result.final_evaluation = evaluation;
        break;
      }
    }
    if (schedule.due(loop.step)) topology.while_consistent(write_checkpoint);
  }
  if (schedule.writes(loop.step)) topology.prepare_final_checkpoint();
  loop.step = topology.end(loop.step);
  result.interrupted = loop.step < total_steps && !result.stopped_early;

  write_checkpoint();
  result.checkpoint = schedule.newest();
  if (!result.interrupted && !result.stopped_early && parts.evaluator &&
      !evaluate(&result.final_evaluation)) {
    result.interrupted = result.stopped_in_final_evaluation = true;
  }
  result.best = best.best();
  result.steps = loop.step;
  result.seconds = loop.seconds + clock.elapsed();
  return result;
}

}  // namespace mnrl::experiments
