#include "experiments/training/training_loop.h"

#include <algorithm>

namespace mnrl::experiments {
namespace {

// One run of the training loop (see training_loop.h): what it keeps between its phases, which
// run_training_loop takes in order (resume or start, train, finish).
class TrainingLoop {
 public:
  TrainingLoop(TrainingTopology& topology, const ExperimentOptions& options,
               const CheckpointSettings* checkpoints)
      : topology_(topology),
        train_(options.train),
        parts_(topology.parts()),
        metrics_(topology.metrics()),
        loop_(resumed_or_started(topology, options, checkpoints)),
        schedule_(checkpoints, options, loop_),
        best_(topology.leader() ? checkpoints : nullptr, options) {
    clock_.first_step = loop_.step;
  }

  // Advances to train.total_steps, evaluating and writing checkpoints on schedule, until the
  // budget ends, an evaluation reaches train.stop_at_return, or the topology stops.
  void train() {
    topology_.begin(clock_);
    while (loop_.step < train_.total_steps) {
      const Advance advance =
          topology_.advance(std::min({loop_.next_eval, schedule_.next(), train_.total_steps}));
      loop_.step = advance.step;
      if (advance.stopped) break;
      if (loop_.step >= loop_.next_eval && loop_.step < train_.total_steps &&
          scheduled_evaluation_stops()) {
        break;
      }
      if (schedule_.due(loop_.step)) topology_.while_consistent([&] { write_checkpoint(); });
    }
  }

  // The last checkpoint, then the final evaluation (unless stopped).
  TrainingResult finish() {
    if (schedule_.writes(loop_.step)) topology_.prepare_final_checkpoint();
    loop_.step = topology_.end(loop_.step);
    result_.interrupted = loop_.step < train_.total_steps && !result_.stopped_early;
    write_checkpoint();
    result_.checkpoint = schedule_.newest();
    if (!result_.interrupted && !result_.stopped_early && parts_.evaluator &&
        !evaluate(&result_.final_evaluation)) {
      result_.interrupted = result_.stopped_in_final_evaluation = true;
    }
    result_.best = best_.best();
    result_.steps = loop_.step;
    result_.seconds = loop_.seconds + clock_.elapsed();
    return result_;
  }

 private:
  // The loop state of the checkpoint resumed from, or of a new run whose episodes it starts.
  static LoopState resumed_or_started(TrainingTopology& topology, const ExperimentOptions& options,
                                      const CheckpointSettings* checkpoints) {
    const auto& train = options.train;
    LoopState loop;
    loop.next_eval = train.eval_interval > 0 ? train.eval_interval : train.total_steps + 1;
    const bool resumed = checkpoints && checkpoints->resume_from;
    if (!resumed ||
        !resume_from_checkpoint(*checkpoints, options.subject(), loop, topology.parts())) {
      // Envs that cannot save their state start new episodes, seeded apart from the first ones.
      topology.start_episodes(resumed ? std::optional<std::int64_t>(loop.step) : std::nullopt);
    }
    return loop;
  }

  // The evaluation due at this step; true when it reached train.stop_at_return.
  bool scheduled_evaluation_stops() {
    const std::optional<double> stop_at_return = train_.stop_at_return;
    EvaluationResult evaluation;
    const bool reached = parts_.evaluator && evaluate(&evaluation) && stop_at_return &&
                         evaluation.mean_return >= *stop_at_return;
    loop_.next_eval += train_.eval_interval;
    // Every rank running this loop evaluated here in step; only the leader knows the return.
    if (!stop_at_return || !topology_.agree_with_leader(reached)) return false;
    result_.stopped_early = TrainingResult::EarlyStop{loop_.step, evaluation.mean_return};
    result_.final_evaluation = evaluation;
    return true;
  }

  // Evaluates the policy (the leader; false if stopped meanwhile) and offers it as the best.
  bool evaluate(EvaluationResult* result) {
    if (!evaluate_and_record(*parts_.evaluator, topology_.evaluation_agent(), metrics_, loop_.step,
                             result)) {
      return false;
    }
    topology_.while_consistent(
        [&] { best_.offer(loop_.step, *result, topology_.evaluated_policy()); });
    return true;
  }

  void write_checkpoint() {
    metrics_.flush();  // the metrics up to a checkpoint are on disk with it
    LoopState now = loop_;
    now.seconds += clock_.elapsed();
    schedule_.write(now, parts_);
  }

  TrainingTopology& topology_;
  const TrainOptions& train_;
  const TrainingParts& parts_;
  MetricsSink& metrics_;
  LoopState loop_;
  CheckpointSchedule schedule_;
  BestCheckpoint best_;
  TrainingClock clock_;
  TrainingResult result_;
};

}  // namespace

TrainingResult run_training_loop(TrainingTopology& topology, const ExperimentOptions& options,
                                 const CheckpointSettings* checkpoints) {
  TrainingLoop loop(topology, options, checkpoints);
  loop.train();
  return loop.finish();
}

}  // namespace mnrl::experiments
