#include "experiments/checkpoints/training_checkpoint.h"

#include <limits>
#include <set>
#include <stdexcept>
#include <utility>

#include "core/config.h"
#include "core/run_directory.h"
#include "core/state_stream.h"
#include "distributed/byte_exchange.h"
#include "distributed/communicator.h"
#include "experiments/training/train_device.h"
#include "nn/tensor_state.h"

namespace mnrl::experiments {
namespace fs = std::filesystem;
namespace {

constexpr const char* kAgentFile = "agent.state";
constexpr const char* kEnvsFile = "envs.state";
constexpr const char* kTrainingFile = "training.state";
constexpr const char* kReplayFile = "replay.bin";
constexpr const char* kActorFile = "actor.state";

int rank_of(const TrainingParts& parts) {
  return parts.communicator ? parts.communicator->rank() : 0;
}

// The name of `rank`'s copy of checkpoint file `name`.
std::string rank_file(const std::string& name, int rank) {
  return rank == 0 ? name : "rank" + std::to_string(rank) + "." + name;
}

// Named files, packed into one byte string to travel to rank 0.
using Files = std::vector<std::pair<std::string, std::string>>;

std::string pack(const Files& files) {
  core::StateWriter out;
  out.value(static_cast<std::uint64_t>(files.size()));
  for (const auto& [name, bytes] : files) {
    out.text(name);
    out.text(bytes);
  }
  return out.bytes();
}

Files unpack(const std::string& packed, int rank) {
  core::StateReader in(packed, "checkpoint files of rank " + std::to_string(rank));
  Files files(in.value<std::uint64_t>());
  for (auto& [name, bytes] : files) {
    name = in.text();
    bytes = in.text();
  }
  return files;
}

// Rank r's files travel to rank 0 with this tag, at most this many bytes (what a length beyond
// it is: damaged).
constexpr int kFilesTag = 8;
constexpr std::int64_t kLargestFiles = std::int64_t{1} << 40;

// Throws std::runtime_error unless `files`, from rank `rank` of a job of `ranks` ranks (the
// learners' ranks where actors are, `actors` of them), are named as that rank's files, each
// once: a damaged message would otherwise overwrite another rank's file in the checkpoint.
void check_file_names(const Files& files, int rank, int ranks, int actors) {
  std::set<std::string> expected;
  for (const char* file : {kAgentFile, kEnvsFile, kTrainingFile, kReplayFile}) {
    expected.insert(rank_file(file, rank));
  }
  for (int actor = ranks + rank; actor < ranks + actors; actor += ranks) {
    expected.insert(rank_file(kActorFile, actor));
  }
  for (const auto& file : files) {
    if (expected.erase(file.first) == 0) {
      throw std::runtime_error("checkpoint files of rank " + std::to_string(rank) + ": '" +
                               file.first + "' is not one of its files, or comes twice");
    }
  }
}

// Throws CheckpointError unless the checkpoint holds the state of exactly `ranks` ranks (each
// a pipeline of `stages` ranks where stages > 1).
void check_rank_count(const Checkpoint& checkpoint, int ranks, int stages) {
  int saved = 1;
  while (checkpoint.has(rank_file(kAgentFile, saved))) ++saved;
  if (saved == ranks) return;
  const std::string written =
      "checkpoint '" + checkpoint.directory().string() + "' was written by ";
  if (stages > 1) {
    throw CheckpointError(written + std::to_string(saved) +
                          " pipeline(s) (or data-parallel ranks); with pipelines of " +
                          std::to_string(stages) + " stages resume it with mpirun -np " +
                          std::to_string(saved * stages) + ", not " +
                          std::to_string(ranks * stages));
  }
  throw CheckpointError(written + "a job of " + std::to_string(saved) +
                        " rank(s); resume it with " + std::to_string(saved) + " (mpirun -np " +
                        std::to_string(saved) + "), not " + std::to_string(ranks));
}

// Throws CheckpointError unless the checkpoint holds the states of `actors` actor ranks (from
// rank `learners` on), or of none; returns how many it holds.
int check_actor_count(const Checkpoint& checkpoint, int learners, int actors) {
  int saved = 0;
  while (checkpoint.has(rank_file(kActorFile, learners + saved))) ++saved;
  if (saved != 0 && saved != actors) {
    throw CheckpointError("checkpoint '" + checkpoint.directory().string() +
                          "' was written by a "
                          "job of " +
                          std::to_string(learners) + " learner(s) and " + std::to_string(saved) +
                          " actor(s); resume it with mpirun -np " +
                          std::to_string(learners + saved) + ", not " +
                          std::to_string(learners + actors));
  }
  return saved;
}

// Reads file `name` of the checkpoint into `bytes` (which must outlive the reader).
core::StateReader reader_of(const Checkpoint& checkpoint, const std::string& name,
                            std::string& bytes) {
  bytes = checkpoint.read(name);
  return core::StateReader(bytes, checkpoint.path_of(name).string());
}

// mnrl wrote replay.bin in a format of its own (and prioritized replay's priorities beside it)
// until every state file became a state stream: refused by name rather than misread.
void refuse_earlier_replay_format(const Checkpoint& checkpoint, const std::string& name,
                                  const std::string& bytes) {
  if (bytes.rfind("MNRLRPLB", 0) == 0) {
    throw CheckpointError("checkpoint '" + checkpoint.directory().string() + "': its " + name +
                          " is in the replay format of an earlier mnrl (\"MNRLRPLB\"), which "
                          "this one does not read; resume from a checkpoint written since, or "
                          "start the run again");
  }
}

void load_agents(const Checkpoint& checkpoint, const TrainingParts& parts) {
  std::string bytes;
  core::StateReader in = reader_of(checkpoint, rank_file(kAgentFile, rank_of(parts)), bytes);
  in.expect_tag("agents");
  const auto count = in.value<std::uint64_t>();
  if (count != parts.agents.size()) {
    if (parts.shared) {
      const auto& written_by = parts.shared->describe_agents;
      throw CheckpointError("checkpoint '" + checkpoint.directory().string() + "' was written by " +
                            written_by(count) + ", not " + written_by(parts.agents.size()) +
                            ": resume it the way it was trained");
    }
    in.fail(std::to_string(count) + " agents, expected " + std::to_string(parts.agents.size()));
  }
  for (agents::Agent* agent : parts.agents) agent->load_state(in);
  if (parts.shared) parts.shared->load(in);
  in.expect_end();
}

// What load_agents() reads: every agent, then what they share.
core::StateWriter agents_state(const TrainingParts& parts) {
  core::StateWriter out;
  out.tag("agents");
  out.value(static_cast<std::uint64_t>(parts.agents.size()));
  for (const agents::Agent* agent : parts.agents) agent->save_state(out);
  if (parts.shared) parts.shared->save(out);
  return out;
}

std::string resolved_config(const ExperimentOptions& options) {
  ExperimentOptions resolved = options;
  return core::to_yaml([&](core::ConfigVisitor& v) { resolved.visit(v); });
}

std::string now_utc() { return core::format_current_time("%Y-%m-%dT%H:%M:%SZ", /*utc=*/true); }

// This rank's files of a checkpoint, named as in it (rank_file): its agents, envs, loop state
// and LibTorch's generators (this rank's samples), replay, and its actors' states.
Files rank_files(const ExperimentOptions& options, const LoopState& loop,
                 const TrainingParts& parts, int rank) {
  core::StateWriter env_state;
  for (const envs::VectorEnv* envs : parts.envs) envs->save_state(env_state);
  if (parts.evaluator) parts.evaluator->save_state(env_state);
  core::StateWriter training;
  training.tag("training_loop");
  training.value(loop.step);
  training.value(loop.next_eval);
  training.value(loop.seconds);
  nn::save_torch_rng(training);
  nn::save_cuda_rng(training, trains_on_cuda(options));
  Files files{{rank_file(kAgentFile, rank), agents_state(parts).bytes()},
              {rank_file(kEnvsFile, rank), env_state.bytes()},
              {rank_file(kTrainingFile, rank), training.bytes()}};
  if (parts.agents.size() == 1 && parts.agents.front()->has_replay() &&
      options.checkpoint.replay_buffer) {
    core::StateWriter replay;
    parts.agents.front()->save_replay(replay);
    files.emplace_back(rank_file(kReplayFile, rank), replay.bytes());
  }
  if (parts.actor_states) {
    for (ActorState& actor : parts.actor_states()) {
      files.emplace_back(rank_file(kActorFile, actor.rank), std::move(actor.bytes));
    }
  }
  return files;
}

}  // namespace

fs::path save_training_checkpoint(const fs::path& run_dir, const ExperimentOptions& options,
                                  const LoopState& loop, const TrainingParts& parts) {
  distributed::Communicator* communicator = parts.communicator;
  const bool several_ranks = communicator && communicator->size() > 1;
  const int rank = several_ranks ? communicator->rank() : 0;
  Files files = rank_files(options, loop, parts, rank);
  // The other ranks send their files to rank 0, one rank at a time, so that no rank holds more
  // than its own and rank 0 more than one other's at once.
  if (rank > 0) {
    distributed::send_bytes(*communicator, pack(files), 0, kFilesTag);
    return {};
  }
  CheckpointWriter writer(run_dir, {loop.step, options.algo, options.env.id, std::nullopt});
  for (const auto& [name, bytes] : files) writer.add(name, bytes);
  for (int other = 1; several_ranks && other < communicator->size(); ++other) {
    const Files received = unpack(distributed::receive_bytes(*communicator, other, kFilesTag,
                                                             kLargestFiles, "checkpoint files"),
                                  other);
    check_file_names(received, other, communicator->size(), parts.actors);
    for (const auto& [name, bytes] : received) writer.add(name, bytes);
  }
  writer.add("config.yaml", resolved_config(options));
  const fs::path written = writer.commit(now_utc());
  prune_checkpoints(run_dir, options.checkpoint.keep);
  return written;
}

fs::path save_policy_checkpoint(const fs::path& run_dir, const std::string& name,
                                const ExperimentOptions& options, CheckpointInfo info,
                                const TrainingParts& parts) {
  info.algo = options.algo;
  info.env = options.env.id;
  CheckpointWriter writer(run_dir, std::move(info), name);
  writer.add(kAgentFile, agents_state(parts).bytes());
  core::StateWriter env_state;
  parts.envs.front()->save_state(env_state);
  writer.add(kEnvsFile, env_state.bytes());
  writer.add("config.yaml", resolved_config(options));
  return writer.commit(now_utc());
}

void check_checkpoint_matches(const Checkpoint& checkpoint, const RunSubject& subject) {
  const CheckpointInfo& info = checkpoint.info();
  if (info.algo != subject.algo || info.env != subject.env) {
    throw CheckpointError("checkpoint '" + checkpoint.directory().string() + "' is of " +
                          info.algo + " on " + info.env + ", not of " + subject.algo + " on " +
                          subject.env);
  }
}

bool restore_training_checkpoint(const Checkpoint& checkpoint, const RunSubject& subject,
                                 LoopState& loop, const TrainingParts& parts) {
  check_checkpoint_matches(checkpoint, subject);
  const int ranks = parts.communicator ? parts.communicator->size() : 1;
  check_rank_count(checkpoint, ranks, parts.pipeline_stages);
  // Also where this job has no actors (one process): their saved states would be lost.
  check_actor_count(checkpoint, ranks, parts.actors);
  const int rank = rank_of(parts);
  std::string bytes;
  {
    core::StateReader in = reader_of(checkpoint, rank_file(kTrainingFile, rank), bytes);
    in.expect_tag("training_loop");
    in.value(loop.step);
    in.value(loop.next_eval);
    in.value(loop.seconds);
    nn::load_torch_rng(in);
    nn::load_cuda_rng(in);
    in.expect_end();
  }
  // The manifest's step decides which metrics rows a resume keeps: it must be the loop's.
  if (loop.step != checkpoint.info().step) {
    throw CheckpointError("checkpoint '" + checkpoint.directory().string() +
                          "': its manifest "
                          "says step " +
                          std::to_string(checkpoint.info().step) + ", its " + kTrainingFile +
                          " step " + std::to_string(loop.step));
  }
  load_agents(checkpoint, parts);
  const std::string replay = rank_file(kReplayFile, rank);
  if (parts.agents.size() == 1 && parts.agents.front()->has_replay() && checkpoint.has(replay)) {
    core::StateReader in = reader_of(checkpoint, replay, bytes);
    refuse_earlier_replay_format(checkpoint, replay, bytes);
    parts.agents.front()->load_replay(in);
    in.expect_end();
  }
  core::StateReader in = reader_of(checkpoint, rank_file(kEnvsFile, rank), bytes);
  bool episodes_restored = true;
  for (envs::VectorEnv* envs : parts.envs) episodes_restored &= envs->load_state(in);
  if (parts.evaluator) parts.evaluator->load_state(in);
  in.expect_end();
  return episodes_restored;
}

std::size_t saved_agent_count(const Checkpoint& checkpoint) {
  std::string bytes;
  core::StateReader in = reader_of(checkpoint, kAgentFile, bytes);
  in.expect_tag("agents");
  const auto count = in.value<std::uint64_t>();
  constexpr std::uint64_t kMostAgents = 1024;  // a3c.workers' bound, and any topology's
  if (count > kMostAgents) in.fail(std::to_string(count) + " agents, at most 1024 expected");
  return count;
}

void restore_policy(const Checkpoint& checkpoint, const TrainingParts& parts) {
  load_agents(checkpoint, parts);
  std::string bytes;
  core::StateReader in = reader_of(checkpoint, kEnvsFile, bytes);
  parts.envs.front()->load_state(in);
}

std::optional<std::string> saved_actor_state(const Checkpoint& checkpoint, int rank, int learners,
                                             int actors) {
  if (check_actor_count(checkpoint, learners, actors) == 0) return std::nullopt;
  return checkpoint.read(rank_file(kActorFile, rank));
}

bool resume_from_checkpoint(const CheckpointSettings& checkpoints, const RunSubject& subject,
                            LoopState& loop, const TrainingParts& parts) {
  const bool episodes_restored =
      restore_training_checkpoint(*checkpoints.resume_from, subject, loop, parts);
  if (checkpoints.on_restored) checkpoints.on_restored();
  return episodes_restored;
}

CheckpointSchedule::CheckpointSchedule(const CheckpointSettings* checkpoints,
                                       const ExperimentOptions& options, const LoopState& loop)
    : checkpoints_(checkpoints),
      options_(options),
      interval_(checkpoints ? options.checkpoint.interval : 0),
      next_(interval_ > 0 ? (loop.step / interval_ + 1) * interval_
                          : std::numeric_limits<std::int64_t>::max()),
      total_steps_(options.train.total_steps) {
  if (checkpoints && checkpoints->resume_from) {
    newest_step_ = checkpoints->resume_from->info().step;
    newest_ = checkpoints->resume_from->directory();
  }
}

void CheckpointSchedule::write(const LoopState& loop, const TrainingParts& parts) {
  if (interval_ > 0) {
    while (next_ <= loop.step) next_ += interval_;
  }
  if (!writes(loop.step)) return;
  newest_ = save_training_checkpoint(checkpoints_->run_dir, options_, loop, parts);
  newest_step_ = loop.step;
}

}  // namespace mnrl::experiments
