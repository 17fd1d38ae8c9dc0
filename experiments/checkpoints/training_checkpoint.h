#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "agents/agent.h"
#include "envs/vector_env.h"
#include "experiments/checkpoints/checkpoint.h"
#include "experiments/config/experiment_options.h"
#include "experiments/evaluation/evaluator.h"

namespace mnrl::distributed {
class Communicator;
}

namespace mnrl::experiments {

// Where a run keeps its checkpoints, and the checkpoint it resumes from, if any.
struct CheckpointSettings {
  std::filesystem::path run_dir;
  std::optional<Checkpoint> resume_from;
  // Called once the loop has restored resume_from, before it reports anything: what a resume
  // changes in the run directory waits until the checkpoint is known to load.
  std::function<void()> on_restored;
};

// What a training loop carries from step to step besides its agent and envs.
struct LoopState {
  std::int64_t step = 0;       // env steps taken
  std::int64_t next_eval = 0;  // step of the next scheduled evaluation
  double seconds = 0.0;        // wall time of the run's earlier segments (before resumes)
};

// An actor rank's state (IMPALA, Ape-X; actor_loop.h), as it sent it to its learner.
struct ActorState {
  int rank = 0;
  std::string bytes;
};

// What a topology's agents share, saved after them in agent.state (A3C's shared model).
struct SharedState {
  std::function<void(core::StateWriter&)> save;
  std::function<void(core::StateReader&)> load;
  // Who writes `agents` agents ("2 worker thread(s) (a3c.workers)"), for the error about a
  // checkpoint with another count than this run's.
  std::function<std::string(std::uint64_t agents)> describe_agents;
};

// What a checkpoint holds besides the loop state: one learner and its envs, or several agents
// (A3C's workers, their envs in the same order) and what they share.
struct TrainingParts {
  std::vector<agents::Agent*> agents;
  std::vector<envs::VectorEnv*> envs;
  Evaluator* evaluator = nullptr;
  std::optional<SharedState> shared;
  // A data-parallel job of several ranks: each rank's agent and envs are saved, rank r > 0's
  // files named "rank<r>.<file>", all written by rank 0. Null for one process.
  distributed::Communicator* communicator = nullptr;
  // Pipelines side by side: each of those ranks is a pipeline of this many stages (how many
  // ranks a resume takes).
  int pipeline_stages = 1;
  // A learner of an actors-and-learners job: how many actor ranks the job has, and what
  // collects its own actors' states (each saved as "rank<r>.actor.state", r the actor's rank).
  int actors = 0;
  std::function<std::vector<ActorState>()> actor_states;
};

// Writes a checkpoint at loop.step: agent.state (every agent, and the shared model), envs.state
// (training envs, then the evaluation envs), training.state (loop state and LibTorch's
// generator), replay.bin (a single agent's replay buffer, with checkpoint.replay_buffer), the
// actors' states (parts.actor_states) and config.yaml (the resolved config). Then deletes all but
// the newest checkpoint.keep. Returns the checkpoint's directory. With parts.communicator, every
// rank calls it and hands its files to rank 0, which writes them; the other ranks return an empty
// path.
std::filesystem::path save_training_checkpoint(const std::filesystem::path& run_dir,
                                               const ExperimentOptions& options,
                                               const LoopState& loop, const TrainingParts& parts);

// Writes the policy alone as checkpoint RUN_DIR/checkpoints/<name>: agent.state, the first
// training envs' state (for their observation statistics) and config.yaml, what
// restore_policy() and evaluate_checkpoint() read; nothing a resume needs. One process (rank 0
// of a job: every rank holds the same policy). info.algo and info.env are filled in.
std::filesystem::path save_policy_checkpoint(const std::filesystem::path& run_dir,
                                             const std::string& name,
                                             const ExperimentOptions& options, CheckpointInfo info,
                                             const TrainingParts& parts);

// Restores what save_training_checkpoint() wrote into parts built from the same options; with
// parts.communicator, each rank reads its own files (so the run directory must be visible to
// every rank) and a checkpoint of another number of ranks is refused.
// Returns whether the training envs' episodes were restored; if not, the caller resets them.
// Throws CheckpointError (another algo or env) or core::StateError (another configuration).
bool restore_training_checkpoint(const Checkpoint& checkpoint, const RunSubject& subject,
                                 LoopState& loop, const TrainingParts& parts);

// The state actor rank `rank` of a job of `learners` learners and `actors` actors saved in
// `checkpoint`; none where the checkpoint holds no actor's state (written by an mnrl that did
// not save them: the actor then starts new episodes). Throws CheckpointError where it holds
// the states of another number of actors.
std::optional<std::string> saved_actor_state(const Checkpoint& checkpoint, int rank, int learners,
                                             int actors);

// Restores checkpoints.resume_from (restore_training_checkpoint) and calls on_restored.
bool resume_from_checkpoint(const CheckpointSettings& checkpoints, const RunSubject& subject,
                            LoopState& loop, const TrainingParts& parts);

// When a training loop writes checkpoints: every checkpoint.interval steps before the end, and
// once more when it ends or stops, unless the newest checkpoint is already at that step (so a
// stop right after a resume or a scheduled checkpoint never rewrites a good checkpoint).
class CheckpointSchedule {
 public:
  // `checkpoints` null: writes nothing. `loop`: the loop state after any resume.
  CheckpointSchedule(const CheckpointSettings* checkpoints, const ExperimentOptions& options,
                     const LoopState& loop);

  bool due(std::int64_t step) const { return step >= next_ && step < total_steps_; }
  // Whether write() at `step` writes a checkpoint.
  bool writes(std::int64_t step) const { return checkpoints_ && step != newest_step_; }
  // The step from which the next scheduled checkpoint is due.
  std::int64_t next() const { return next_; }
  // Writes a checkpoint of `loop` (see above) and schedules the next one.
  void write(const LoopState& loop, const TrainingParts& parts);
  // The newest checkpoint of the run (empty if none).
  const std::filesystem::path& newest() const { return newest_; }

 private:
  const CheckpointSettings* checkpoints_;
  const ExperimentOptions& options_;
  std::int64_t interval_, next_, total_steps_;
  std::int64_t newest_step_ = -1;
  std::filesystem::path newest_;
};

// How many agents the checkpoint holds (A3C: its worker threads; none from a parameter
// server; one in a best policy); at most 1024.
std::size_t saved_agent_count(const Checkpoint& checkpoint);

// Restores only the agents (with what they share) and the first training envs' state, whose
// observation statistics evaluation envs share: what evaluation needs.
void restore_policy(const Checkpoint& checkpoint, const TrainingParts& parts);

// Throws CheckpointError unless the checkpoint was written for the subject's algorithm and env.
void check_checkpoint_matches(const Checkpoint& checkpoint, const RunSubject& subject);

}  // namespace mnrl::experiments
