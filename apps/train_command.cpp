#include <csignal>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>

#include "apps/cli.h"
#include "apps/commands.h"
#include "apps/config_path.h"
#include "apps/env_arguments.h"
#include "core/config.h"
#include "core/run_directory.h"
#include "core/state_stream.h"
#include "core/stop_signal.h"
#include "core/text.h"
#include "distributed/communicator.h"
#include "distributed/job.h"
#include "envs/plugin_call.h"
#include "experiments/checkpoints/checkpoint.h"
#include "experiments/config/experiment_options.h"
#include "experiments/config/rank_agreement.h"
#include "experiments/runs/training_run.h"

namespace mnrl::apps {
namespace {

const char* signal_name(int signal) {
  return signal == SIGINT ? "Ctrl-C (SIGINT)" : signal == SIGTERM ? "SIGTERM" : "a signal";
}

void say_skipped(const std::string& reason) {
  std::fprintf(stderr, "mnrl train: skipping a checkpoint: %s\n", reason.c_str());
}

// Loads the experiment on every rank. Returns false, having said why, unless every rank could:
// a config or plugin that one rank cannot load (a file missing on one node) stops all of them
// before any work. Rank 0 speaks for an error every rank shares.
bool load_on_every_rank(const TrainArguments& args, distributed::Job& job,
                        experiments::ExperimentOptions& options) {
  std::vector<std::string> overrides = args.overrides;
  if (args.seed) overrides.push_back("seed=" + std::to_string(*args.seed));
  std::string error;
  try {
    if (args.resume.empty()) options = experiments::load_experiment(args.config, overrides);
  } catch (const core::ConfigError& e) {
    error = e.what();
  }
  const std::vector<int> failed = job.ranks_where(!error.empty());
  if (failed.empty()) return true;
  if (!error.empty() && (job.rank() == 0 || failed.front() != 0)) {
    std::fprintf(stderr, "mnrl train%s: config error: %s\n", job.rank_label().c_str(),
                 error.c_str());
  }
  if (job.rank() == 0 && job.size() > 1 && failed.front() != 0) {
    std::vector<std::string> ranks;
    for (const int rank : failed) ranks.push_back(std::to_string(rank));
    std::fprintf(stderr, "mnrl train: rank(s) %s could not load the experiment; nothing was run\n",
                 core::join(ranks).c_str());
  }
  return false;
}

// Reports a failure. A job of several ranks ends at once on every rank (the others may be
// waiting for this one in a collective); one process returns `code`.
int fail(distributed::Job& job, int code, const std::string& message) {
  std::fflush(stdout);
  std::fprintf(stderr, "%smnrl train%s: %s\n", code == kExitFailure ? "\n" : "",
               job.rank_label().c_str(), message.c_str());
  if (job.size() > 1) {
    std::fprintf(stderr, "mnrl train%s: ending the job\n", job.rank_label().c_str());
    job.abort(code);
  }
  return code;
}

int report(const experiments::TrainingRunResult& run, distributed::Job& job) {
  const auto& t = run.training;
  if (job.rank() > 0) return t.interrupted && core::stop_signal() ? 128 + core::stop_signal() : 0;
  if (t.interrupted) {
    // In a job of several ranks, the signal may have reached another rank only.
    const int signal = core::stop_signal() ? core::stop_signal() : SIGTERM;
    const char* by = core::stop_signal() ? signal_name(signal) : "a signal to another rank";
    if (t.stopped_in_final_evaluation) {
      std::printf("stopped by %s during the final evaluation; the training is complete and its "
                  "checkpoint written: %s\nevaluate it with: mnrl eval %s\n",
                  by, t.checkpoint.c_str(), run.run_dir.c_str());
    } else {
      // The command that resumes: a job of several ranks resumes with as many.
      const std::string launcher =
          job.size() > 1 ? "mpirun -np " + std::to_string(job.size()) + " " : "";
      std::printf("stopped by %s at step %lld; checkpoint: %s\nresume with: %smnrl train "
                  "--resume %s\n",
                  by, static_cast<long long>(t.steps), t.checkpoint.c_str(), launcher.c_str(),
                  run.run_dir.c_str());
    }
    return 128 + signal;
  }
  const auto& e = t.final_evaluation;
  std::printf("final evaluation: mean return %.2f ± %.2f over %d episodes (greedy actions)\n",
              e.mean_return, e.std_return, e.episodes);
  if (t.best && t.best->step != t.steps) {
    std::printf("best evaluation: mean return %.2f at step %lld, kept in %s\n",
                t.best->mean_return, static_cast<long long>(t.best->step),
                t.best->checkpoint.c_str());
  }
  std::printf("trained %lld steps in %.2f s (%.0f steps/s); run directory: %s\n",
              static_cast<long long>(t.steps), t.seconds,
              t.seconds > 0 ? static_cast<double>(t.steps) / t.seconds : 0.0,
              run.run_dir.c_str());
  return kExitOk;
}

}  // namespace

int train_command(const TrainArguments& args) {
  if (args.config.empty() && args.resume.empty()) {
    std::fprintf(stderr,
                 "mnrl train: give an experiment file (mnrl train CONFIG) or a run to resume "
                 "(mnrl train --resume RUN_DIR)\n");
    return kExitUsage;
  }
  std::unique_ptr<distributed::Job> job_holder;
  try {
    job_holder = std::make_unique<distributed::Job>();
  } catch (const distributed::CommunicatorError& e) {
    std::fprintf(stderr, "mnrl train: %s\n", e.what());
    return kExitUsage;
  }
  distributed::Job& job = *job_holder;
  envs::install_plugin_call_reporting();  // again: MPI's initialization replaced the handlers
  experiments::ExperimentOptions options;
  if (!load_on_every_rank(args, job, options)) return kExitUsage;

  core::install_stop_handlers();
  try {
    experiments::TrainingRunSettings settings;
    settings.run_dir = args.run_dir;
    settings.command_line = args.command_line;
    settings.allow_changes = args.allow_changes;
    settings.progress = args.progress == "live"    ? experiments::ProgressMode::kLive
                        : args.progress == "lines" ? experiments::ProgressMode::kLines
                        : args.progress == "none"  ? experiments::ProgressMode::kNone
                                                   : experiments::ProgressMode::kAuto;
    return report(args.resume.empty()
                      ? experiments::run_training(options, settings)
                      : experiments::resume_training(args.resume, settings, say_skipped),
                  job);
  } catch (const experiments::RanksDisagree& e) {
    // Every rank knows, and none waits for another: each ends, rank 0 says why.
    if (job.rank() == 0) std::fprintf(stderr, "mnrl train: %s\n", e.what());
    return kExitUsage;
  } catch (const core::RunDirectoryError& e) {
    return fail(job, kExitUsage, e.what());
  } catch (const core::ConfigError& e) {
    return fail(job, kExitUsage, std::string("config error in the run to resume: ") + e.what());
  } catch (const distributed::CommunicatorError& e) {
    return fail(job, kExitUsage, e.what());
  } catch (const experiments::CheckpointError& e) {
    return fail(job, kExitUsage, e.what());
  } catch (const core::StateError& e) {
    return fail(job, kExitUsage,
                std::string("the checkpoint does not fit the run's config: ") + e.what());
  } catch (const std::exception& e) {
    return fail(job, kExitFailure, std::string("error: ") + e.what());
  }
}

Command add_train_command(CLI::App& mnrl, const std::string& command_line) {
  auto args = std::make_shared<TrainArguments>();
  args->command_line = command_line;
  CLI::App* train = mnrl.add_subcommand("train", "Train an agent from a YAML experiment file");
  auto* config_option = train->add_option(
      "config", args->config,
      "Experiment YAML file, or the name of a bundled one (cartpole_ppo; see share/mnrl/configs)");
  auto* resume_option = train->add_option(
      "--resume", args->resume,
      "Continue the run in RUN_DIR from its newest usable checkpoint, with its config.yaml");
  resume_option->type_name("RUN_DIR")->excludes(config_option);
  train
      ->add_flag("--allow-changes", args->allow_changes,
                 "With --resume: train on although config.yaml changed keys that alter the run "
                 "since the checkpoint (they are recorded in run_info.yaml)")
      ->needs(resume_option);
  resume_option->excludes(
      train->add_option("--set", args->overrides,
                        "Override a config key, e.g. --set ppo.gamma=0.99 (repeatable)")
          ->type_name("KEY=VALUE")
          ->allow_extra_args(false));
  resume_option->excludes(
      train->add_option("--seed", args->seed, "Experiment seed (same as --set seed=N)"));
  resume_option->excludes(train->add_option(
      "--run-dir", args->run_dir, "Directory for this run (default: runs/<name>-<timestamp>)"));
  train
      ->add_option("--progress", args->progress,
                   "Progress display: live (one line redrawn), lines (one every log_interval "
                   "steps), none, or auto (live on a terminal, else lines; lines in a job of "
                   "several ranks)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "live", "lines", "none"}));
  add_plugin_option(*train, args->plugins);
  return {train, [args] {
            if (!load_plugins(args->plugins, "train")) return kExitUsage;
            args->config = find_config(args->config);
            return train_command(*args);
          }};
}

}  // namespace mnrl::apps
