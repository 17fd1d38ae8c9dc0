#include "experiments/runs/training_run.h"

#include <ATen/ops/full.h>

#include <memory>
#include <vector>

#include "agents/registry.h"
#include "core/build_info.h"
#include "core/config_diff.h"
#include "core/crc32c.h"
#include "core/files.h"
#include "core/openblas.h"
#include "core/run_directory.h"
#include "core/text.h"
#include "core/yaml_writer.h"
#include "distributed/communicator.h"
#include "experiments/config/rank_agreement.h"
#include "experiments/metrics/console_reporter.h"
#include "experiments/metrics/metrics.h"
#include "experiments/metrics/tensorboard_metrics.h"
#include "experiments/runs/physics_engines.h"
#include "experiments/runs/run_info.h"
#include "experiments/training/topology_registry.h"
#include "experiments/training/train_device.h"

namespace mnrl::experiments {
namespace fs = std::filesystem;
namespace {

std::string utc_now() { return core::format_current_time("%Y-%m-%dT%H:%M:%SZ", /*utc=*/true); }

// The env's plugin, if it comes from one, by absolute path and CRC-32C.
std::optional<PluginRecord> env_plugin_record(const ExperimentOptions& options) {
  return plugin_record(options.env.plugin);
}

std::string run_info_yaml(const TrainingRunSettings& settings, const ExperimentOptions& options,
                          int ranks) {
  RunInfo info;
  info.command = settings.command_line;
  info.launch = {ranks, this_launch()};
  info.mnrl_version = core::version();
  info.source_revision = core::source_revision();
  info.blas = core::blas_description();
  info.physics = physics_engines_description();
  info.started = utc_now();
  info.env_plugin = env_plugin_record(options);
  return experiments::run_info_yaml(info);
}

std::string summary_yaml(const TrainingResult& r) {
  core::YamlWriter out;
  out.key("steps").integer(r.steps);
  out.key("seconds").number(r.seconds);
  out.key("sps").number(r.seconds > 0 ? static_cast<double>(r.steps) / r.seconds : 0.0);
  out.key("interrupted").boolean(r.interrupted);
  // Trained to the end (or stopped early by its rule), even when a stop cut the final
  // evaluation short: nothing to resume.
  out.key("training_complete").boolean(!r.interrupted || r.stopped_in_final_evaluation);
  if (r.stopped_early) {
    out.key("stopped_early").begin_map();
    out.key("at_step").integer(r.stopped_early->step);
    out.key("eval_mean_return").number(r.stopped_early->mean_return).end_map();
  }
  out.key("checkpoint").text(r.checkpoint.string());
  const EvaluationResult& e = r.final_evaluation;
  out.key("final_evaluation").begin_map();
  out.key("episodes").integer(e.episodes);
  out.key("mean_return").number(e.mean_return);
  out.key("std_return").number(e.std_return);
  out.key("mean_length").number(e.mean_length).end_map();
  if (r.best) {
    out.key("best_evaluation").begin_map();
    out.key("step").integer(r.best->step);
    out.key("mean_return").number(r.best->mean_return);
    out.key("checkpoint").text(r.best->checkpoint.string()).end_map();
  }
  return out.str();
}

// run_info.yaml with a `resumed:` entry for this resume added.
// A plugin whose bytes differ from the ones the run last trained with is said (on `console`)
// and recorded in the entry.
std::string run_info_resumed(const fs::path& run_dir, const TrainingRunSettings& settings,
                             const Checkpoint& checkpoint,
                             const std::vector<core::ConfigChange>& changes,
                             const ExperimentOptions& options, int ranks) {
  RunInfo info;
  try {
    info = read_run_info(run_dir);
  } catch (const std::exception& e) {
    throw core::RunDirectoryError("cannot resume '" + run_dir.string() + "': " + e.what());
  }
  ResumeRecord resume;
  resume.command = settings.command_line;
  resume.launch = {ranks, this_launch()};
  resume.from_checkpoint = checkpoint.directory().string();
  resume.started = utc_now();
  const std::optional<PluginRecord> plugin = env_plugin_record(options);
  if (const auto warning = plugin_change_warning(info, plugin)) {
    std::fprintf(settings.console, "mnrl: warning: %s\n", warning->c_str());
    resume.env_plugin = plugin;
  }
  resume.config_changes = changes;
  info.resumed.push_back(std::move(resume));
  return experiments::run_info_yaml(info);
}

// Keys a resume may change without --allow-changes: how long and how the run is watched and
// saved, not what it trains.
bool schedule_key(const std::string& key) {
  for (const char* prefix :
       {"name", "train.total_steps", "train.eval_interval", "train.eval_episodes",
        "train.log_interval", "train.stop_at_return", "train.threads", "train.device",
        "train.cuda_graphs", "train.precision", "checkpoint.", "logging.", "distributed.timeout"}) {
    if (key.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// The keys of config.yaml (`with_set`: and the resume's --set) changed since `checkpoint` was
// written, but for the sections of algorithms other than the run's. Throws RunDirectoryError
// listing those that alter the run, unless `allowed`.
std::vector<core::ConfigChange> config_changes_since(const Checkpoint& checkpoint,
                                                     const ExperimentOptions& options,
                                                     const fs::path& run_dir, bool allowed,
                                                     bool with_set) {
  if (!checkpoint.has("config.yaml")) return {};
  const std::vector<core::ConfigChange> changes =
      core::config_changes(checkpoint.read("config.yaml"), resolved_config_yaml(options));
  // The sections of the other algorithms do not take part in this run.
  const auto unused = [&](const core::ConfigChange& change) {
    for (const auto& algo : agents::AgentRegistry::global().names()) {
      if (algo != options.algo && change.key.rfind(algo + ".", 0) == 0) return true;
    }
    return false;
  };
  std::vector<core::ConfigChange> relevant;
  std::string altering;
  for (const auto& change : changes) {
    if (unused(change)) continue;
    relevant.push_back(change);
    if (schedule_key(change.key)) continue;
    altering += "\n  " + change.key + ": " + core::elided(change.before) + " -> " +
                core::elided(change.after);
  }
  if (!altering.empty() && !allowed) {
    throw core::RunDirectoryError(
        "cannot resume '" + run_dir.string() + "': its config.yaml" +
        (with_set ? " with --set" : "") +
        " differs from the checkpoint's in keys that change what is trained:" + altering +
        "\nresume with --allow-changes to "
        "train on with them (run_info.yaml records them)");
  }
  return relevant;
}

// The resolved config, as the run trains with it.
void write_config_yaml(const fs::path& run_dir, const ExperimentOptions& options) {
  core::write_file_atomically(run_dir / "config.yaml", resolved_config_yaml(options));
}

// Moves checkpoints newer than `kept` (unusable ones the resume skipped) out of the way, so
// that pruning counts only the run's history from `kept` on. Kept for inspection.
void set_aside_newer_checkpoints(const fs::path& run_dir, const Checkpoint& kept) {
  for (const fs::path& checkpoint : list_checkpoints(run_dir)) {
    if (*checkpoint_step(checkpoint) <= kept.info().step) continue;
    std::error_code ignored;
    fs::rename(checkpoint,
               checkpoint.parent_path() / (".unusable-" + checkpoint.filename().string()), ignored);
  }
}

// The communicator of distributed.backend, with the job's stall timeout. First checks that
// train.device (and what asks for a GPU) can be had here, before anything is written.
// An actors-and-learners job's learners train on train.device and its actors on the CPU: the
// learners check what it asks for, and every rank hears whether one cannot (a collective), so
// that all stop before anything is written.
void check_learners_device(const ExperimentOptions& options, distributed::Communicator& world) {
  std::string error;
  if (world.rank() < options.distributed.learners) {
    try {
      check_device_options(options, world.local_rank());
    } catch (const core::ConfigError& e) {
      error = e.what();
    }
  }
  at::Tensor failed = at::full({1}, error.empty() ? 0.0f : 1.0f);
  world.all_reduce(failed, distributed::ReduceOp::kMax);
  if (!error.empty()) throw core::ConfigError(error);
  if (failed.item<float>() > 0.0f) {
    throw core::ConfigError(
        "a learner rank cannot train as train.device, train.precision or train.cuda_graphs ask "
        "(its message says why)");
  }
}

// The world of an actors-and-learners job carries host tensors point to point (actors act on
// the CPU): it is mpi whatever the backend, which picks the learners' own (split_learners).
std::unique_ptr<distributed::Communicator> make_job_communicator(const ExperimentOptions& options) {
  const bool learners_apart = topology_kind(options).has_learners();
  if (!learners_apart) check_device_options(options);
  auto communicator =
      learners_apart
          ? distributed::make_communicator("auto", /*gpu_gradients=*/false)
          : distributed::make_communicator(options.distributed.backend, trains_on_cuda(options));
  communicator->set_stall_timeout(options.distributed.timeout);
  if (learners_apart) check_learners_device(options, *communicator);
  return communicator;
}

// A rank other than 0 of a data-parallel job: trains its replica, writes nothing.
TrainingRunResult train_other_rank(const ExperimentOptions& options,
                                   distributed::Communicator& communicator,
                                   std::optional<Checkpoint> resume_from) {
  NoMetrics no_metrics;
  const CheckpointSettings checkpoints{{}, std::move(resume_from), {}};
  TrainingRunResult result;
  result.training = train(options, no_metrics, &checkpoints, &communicator);
  return result;
}

// The end of a job of several ranks: each waits (watched, see distributed.timeout) until rank
// 0 has evaluated and written its summary, rather than in MPI's finalization, which would wait
// forever for a rank 0 stopped meanwhile.
TrainingRunResult finished(TrainingRunResult result, distributed::Communicator& communicator) {
  if (communicator.size() > 1) communicator.barrier();
  return result;
}

// The end of a run on rank 0: an early stop said on the console, summary.yaml written.
void report_end(const fs::path& run_dir, const ExperimentOptions& options,
                const TrainingRunSettings& settings, const TrainingResult& training) {
  if (const auto& early = training.stopped_early) {
    std::fprintf(settings.console,
                 "stopped early at step %lld: the evaluation's mean return %.2f reached "
                 "train.stop_at_return %g\n",
                 static_cast<long long>(early->step), early->mean_return,
                 *options.train.stop_at_return);
  }
  core::write_file_atomically(run_dir / "summary.yaml", summary_yaml(training));
}

// Trains in `given_run_dir` (config.yaml and run_info.yaml already there), from `resume_from`
// if set. A resume changes the run directory (metrics.csv cut back to the checkpoint,
// run_info.yaml, a new TensorBoard file) only once the checkpoint has loaded.
TrainingRunResult train_in(const fs::path& given_run_dir, const ExperimentOptions& options,
                           const TrainingRunSettings& settings,
                           std::optional<Checkpoint> resume_from,
                           distributed::Communicator& communicator,
                           const std::vector<core::ConfigChange>& changes = {},
                           bool config_set_on_resume = false) {
  // Written to by its absolute path: an env plugin's chdir() must not move what the run writes.
  const fs::path run_dir = fs::absolute(given_run_dir);
  TrainingRunResult result;
  result.run_dir = given_run_dir;
  const std::int64_t first_step = resume_from ? resume_from->info().step : 0;
  const ProgressMode progress = settings.progress == ProgressMode::kAuto && communicator.size() > 1
                                    ? ProgressMode::kLines
                                    : settings.progress;
  ConsoleReporter console(settings.console, options.train.total_steps, options.train.log_interval,
                          first_step, progress);
  MetricsFanOut metrics;
  metrics.add(&console);
  std::optional<CsvMetrics> csv;
  std::optional<TensorBoardMetrics> tensorboard;
  CheckpointSettings checkpoints{run_dir, std::move(resume_from), {}};
  const auto open_metric_files = [&] {
    std::optional<std::int64_t> resumed_at;
    if (checkpoints.resume_from) resumed_at = first_step;
    metrics.add(&csv.emplace((run_dir / "metrics.csv").string(), resumed_at));
    if (checkpoints.resume_from) {
      set_aside_newer_checkpoints(run_dir, *checkpoints.resume_from);
      if (config_set_on_resume) write_config_yaml(run_dir, options);
      core::write_file_atomically(run_dir / "run_info.yaml",
                                  run_info_resumed(run_dir, settings, *checkpoints.resume_from,
                                                   changes, options, communicator.size()));
    }
    if (options.logging.tensorboard) metrics.add(&tensorboard.emplace(run_dir, first_step));
  };

  if (checkpoints.resume_from) {
    // Said once the checkpoint has loaded: a refused one was never being resumed.
    checkpoints.on_restored = [&] {
      std::fprintf(settings.console, "mnrl %s: resuming %s on %s at step %lld from %s\n",
                   core::version(), options.algo.c_str(), options.env.id.c_str(),
                   static_cast<long long>(first_step),
                   checkpoints.resume_from->directory().c_str());
      open_metric_files();
    };
  } else {
    open_metric_files();
    std::fprintf(settings.console, "mnrl %s: training %s on %s (%s), run directory %s\n",
                 core::version(), options.algo.c_str(), options.env.id.c_str(),
                 job_layout(options, communicator.size(), communicator.backend()).c_str(),
                 given_run_dir.c_str());
  }
  // Rank 0 always runs a topology (make_topology() is null only on workers and actors).
  result.training =
      run_training_loop(*make_topology(options, metrics, &communicator), options, &checkpoints);
  report_end(run_dir, options, settings, result.training);
  return result;
}

}  // namespace

std::string job_layout(const ExperimentOptions& options, int ranks, const std::string& backend) {
  const std::string envs = std::to_string(options.env.num_envs) + " envs";
  if (ranks == 1) return envs;
  const RankRoles roles = topology_kind(options).rank_roles(options);
  const auto counted = [](int count, const std::string& what) {
    return std::to_string(count) + " " + what + (count == 1 ? "" : "s");
  };
  if (roles.pipeline_stages > 0) {
    std::vector<std::string> acting;
    for (int rank = 0; rank < ranks; rank += roles.pipeline_stages) {
      acting.push_back(std::to_string(rank));
    }
    return counted(ranks / roles.pipeline_stages, "pipeline") + " of " +
           counted(roles.pipeline_stages, "stage") + ", stage 0 acting (" +
           (acting.size() == 1 ? "rank " : "ranks ") + core::join(acting) + ") x " + envs + " (" +
           backend + ")";
  }
  if (roles.leading == 0) return envs + " x " + std::to_string(ranks) + " ranks (" + backend + ")";
  const std::string leading_ranks =
      roles.leading == 1 ? "rank 0" : "ranks 0-" + std::to_string(roles.leading - 1);
  return counted(roles.leading, roles.leading_role) + " (" + leading_ranks + ") + " +
         counted(ranks - roles.leading, roles.other_role) + " x " + envs + " (" + backend + ")";
}

TrainingRunResult run_training(const ExperimentOptions& options,
                               const TrainingRunSettings& settings) {
  const auto communicator = make_job_communicator(options);
  check_ranks_agree(*communicator, options);
  check_ranks_fit(options, *communicator);
  if (communicator->rank() > 0) {
    return finished(train_other_rank(options, *communicator, std::nullopt), *communicator);
  }
  const fs::path run_dir = core::create_run_directory(settings.run_dir, options.name);
  const core::RunDirectoryLock lock(run_dir);
  write_config_yaml(run_dir, options);
  core::write_file_atomically(run_dir / "run_info.yaml",
                              run_info_yaml(settings, options, communicator->size()));
  return finished(train_in(run_dir, options, settings, std::nullopt, *communicator), *communicator);
}

TrainingRunResult resume_training(const fs::path& run_dir, const TrainingRunSettings& settings,
                                  const std::function<void(const std::string&)>& skipped,
                                  const std::vector<std::string>& overrides) {
  std::error_code error;
  if (!fs::is_regular_file(run_dir / "config.yaml", error)) {
    throw core::RunDirectoryError("cannot resume '" + run_dir.string() +
                                  "': not a run directory (no config.yaml)");
  }
  const ExperimentOptions options = load_experiment((run_dir / "config.yaml").string(), overrides);
  // What a resume rewrites must be there, readable and replaceable before anything changes.
  try {
    for (const char* file : {"metrics.csv", "run_info.yaml"}) {
      core::check_regular_file(run_dir / file, "file");
      core::check_replaceable(run_dir / file);
    }
    core::check_replaceable(run_dir / "summary.yaml");
    if (!overrides.empty()) core::check_replaceable(run_dir / "config.yaml");
    check_resumable_metrics_file((run_dir / "metrics.csv").string());
  } catch (const std::runtime_error& e) {
    throw core::RunDirectoryError("cannot resume '" + run_dir.string() + "': " + e.what());
  }
  const auto communicator = make_job_communicator(options);
  // Rank 0 writes the run directory: it holds the lock until it is done.
  std::optional<core::RunDirectoryLock> lock;
  if (communicator->rank() == 0) lock.emplace(run_dir);
  // Every rank opens the checkpoint; rank 0 alone says which it skipped.
  Checkpoint checkpoint = open_latest_checkpoint(
      run_dir, communicator->rank() == 0 ? skipped : [](const std::string&) {});
  check_checkpoint_matches(checkpoint, options.subject());
  check_ranks_agree(*communicator, options, checkpoint.info().step);
  check_ranks_fit(options, *communicator);
  const std::vector<core::ConfigChange> changes = config_changes_since(
      checkpoint, options, run_dir, settings.allow_changes, !overrides.empty());
  if (checkpoint.info().step >= options.train.total_steps) {
    throw CheckpointError("run '" + run_dir.string() +
                          "' is complete (its latest checkpoint is at "
                          "step " +
                          std::to_string(checkpoint.info().step) + " of train.total_steps " +
                          std::to_string(options.train.total_steps) + "); nothing to resume");
  }
  if (communicator->rank() > 0) {
    return finished(train_other_rank(options, *communicator, std::move(checkpoint)), *communicator);
  }
  return finished(train_in(run_dir, options, settings, std::move(checkpoint), *communicator,
                           changes, !overrides.empty()),
                  *communicator);
}

}  // namespace mnrl::experiments
