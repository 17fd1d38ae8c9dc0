#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

#include "agents/agent.h"
#include "experiments/metrics/metrics.h"
#include "experiments/checkpoints/training_checkpoint.h"

namespace mnrl::experiments {

// Since when this process trains, for the SPS metric and the run's wall time.
struct TrainingClock {
  std::int64_t first_step = 0;  // the step it started from (after a resume)
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();

  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  double steps_per_second(std::int64_t step) const {
    return static_cast<double>(step - first_step) / elapsed();
  }
};

// Where training stands after TrainingTopology::advance().
struct Advance {
  std::int64_t step = 0;
  bool stopped = false;  // by Ctrl-C / SIGTERM (agreed among ranks) or a failing worker
};

// How a training run's env steps and updates are carried out: replicas (one process, or
// data-parallel ranks in lockstep), asynchronous worker threads, or a parameter server serving
// worker ranks. The loop (run_training_loop) does everything around it once for all of them:
// resume, reseeding, evaluation, the best policy, checkpoints, stops, the result.
class TrainingTopology {
 public:
  virtual ~TrainingTopology() = default;

  // Where the loop reports evaluations (serialized with what the topology reports itself).
  virtual MetricsSink& metrics() = 0;
  // What a checkpoint saves and a resume restores; its evaluator is null on the processes that
  // do not evaluate (only the leader of a job does).
  virtual const TrainingParts& parts() const = 0;
  // Whether this process evaluates and keeps the best policy (rank 0 of a job).
  virtual bool leader() const { return true; }

  // Starts the training envs' episodes: a fresh run's (`resumed_at` empty), or after a resume
  // from a checkpoint that could not hold them, seeded apart from the first ones by the step.
  virtual void start_episodes(std::optional<std::int64_t> resumed_at) = 0;
  // Starts training, the state in place (fresh or restored).
  virtual void begin(const TrainingClock& clock) = 0;
  // Trains until the step count reaches `until` (at least one vector step where steps are
  // taken here) or training stops; returns where it stands.
  virtual Advance advance(std::int64_t until) = 0;
  // The leader's `decision` on every process that runs the training loop, each calling it at
  // the same point (collective where several do: data-parallel ranks, several learners).
  virtual bool agree_with_leader(bool decision) { return decision; }
  // Runs `action` while the state in parts() is consistent (no worker in the middle of a step).
  virtual void while_consistent(const std::function<void()>& action) { action(); }
  // Called before end() where the loop writes a final checkpoint: takes what that checkpoint
  // needs of what stops in end() (the actors' states).
  virtual void prepare_final_checkpoint() {}
  // Ends training (workers joined, their errors rethrown); returns the final step count.
  virtual std::int64_t end(std::int64_t step) { return step; }

  // The policy to evaluate now: the agent, valid until the next call.
  virtual agents::Agent& evaluation_agent() = 0;
  // What saves the policy evaluation_agent() last returned (checkpoints/best).
  virtual TrainingParts evaluated_policy() const { return parts(); }
};

}  // namespace mnrl::experiments
