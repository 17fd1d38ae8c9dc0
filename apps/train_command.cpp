#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/cli.h"
#include "apps/commands.h"
#include "apps/config_path.h"
#include "apps/env_arguments.h"
#include "core/run_directory.h"
#include "core/stop_signal.h"
#include "experiments/config/experiment_options.h"
#include "experiments/runs/train_job.h"
#include "experiments/studies/child_runs.h"
#include "experiments/studies/seed_study.h"

namespace mnrl::apps {
namespace {

const char* signal_name(int signal) {
  switch (signal) {
    case SIGINT: return "Ctrl-C (SIGINT)";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP (hangup)";
    case SIGUSR1: return "SIGUSR1";
    default: return "a signal";
  }
}

void say_skipped(const std::string& reason) {
  std::fprintf(stderr, "mnrl train: skipping a checkpoint: %s\n", reason.c_str());
}

// What `mnrl train` was given on its command line.
struct TrainArguments {
  std::string config;
  std::string resume;  // --resume RUN_DIR: instead of config
  bool allow_changes = false;  // --allow-changes: resume with a config.yaml edited since
  std::string progress = "auto";  // --progress auto|live|lines|none
  std::vector<std::string> overrides;  // --set key.path=value, in order
  std::optional<std::int64_t> seed;
  std::string run_dir;
  std::string command_line;
  std::vector<std::string> plugins;  // --plugin PATH, loaded first
  std::string seeds;                 // --seeds 1-5: a study of one run per seed
  int jobs = 0;  // --jobs N: a study's runs at a time (0: one per train.threads cores)
};

// This program, for a study's child runs.
std::string this_program() { return std::filesystem::read_symlink("/proc/self/exe").string(); }

// `mnrl train CONFIG --seeds ...`: checks the config once (a config error stops the study
// before anything is written), makes the study directory and runs the seeds.
int train_seeds(const TrainArguments& args) {
  const std::optional<std::vector<std::int64_t>> seeds = experiments::parse_seeds(args.seeds);
  if (!seeds) {
    std::fprintf(stderr,
                 "mnrl train: --seeds '%s' is not a list of seeds: use 1-5, 1,3,7 or 1-3,8 "
                 "(each at least 0, none twice)\n",
                 args.seeds.c_str());
    return kExitUsage;
  }
  experiments::SeedStudy study;
  std::string name;
  try {
    const experiments::ExperimentOptions options =
        experiments::load_experiment(args.config, args.overrides);
    name = options.name;
    study.jobs = args.jobs > 0 ? args.jobs : experiments::default_jobs(options.train.threads);
    study.resolved_config = experiments::resolved_config_yaml(options);
  } catch (const core::ConfigError& e) {
    std::fprintf(stderr, "mnrl train: config error: %s\n", e.what());
    return kExitUsage;
  }
  study.program = this_program();
  study.config = std::filesystem::absolute(args.config).string();
  study.overrides = args.overrides;
  for (const std::string& plugin : args.plugins) {
    study.plugins.push_back(std::filesystem::absolute(plugin).string());
  }
  study.seeds = *seeds;
  std::filesystem::path dir;
  try {
    dir = core::create_run_directory(args.run_dir, name + "-seeds");
  } catch (const core::RunDirectoryError& e) {
    std::fprintf(stderr, "mnrl train: %s\n", e.what());
    return kExitUsage;
  }
  std::printf("study of %zu seeds, %d at a time: %s (each run's output in seed_N.log)\n",
              study.seeds.size(), study.jobs, dir.c_str());
  std::fflush(stdout);
  try {
    return experiments::run_seed_study(study, dir, stdout);
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "mnrl train: %s\n", e.what());
    return kExitFailure;
  }
}

// `mnrl train --resume STUDY`: the study's own options only (its seeds keep their config).
int resume_seeds(const TrainArguments& args) {
  if (!args.overrides.empty() || args.allow_changes || args.progress != "auto" ||
      !args.plugins.empty()) {
    std::fprintf(stderr,
                 "mnrl train: --resume %s resumes a study of seeds, which takes --jobs only: its "
                 "seeds keep the config, plugins and progress display they started with (resume "
                 "one seed with mnrl train --resume %s/seed_N for more)\n",
                 args.resume.c_str(), args.resume.c_str());
    return kExitUsage;
  }
  try {
    return experiments::resume_seed_study(args.resume, this_program(), args.jobs, stdout);
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "mnrl train: %s\n", e.what());
    return kExitUsage;
  }
}

bool refuse_study_under_mpi() {
  const std::optional<std::string> refused = experiments::why_no_study_here();
  if (refused) std::fprintf(stderr, "mnrl train: %s\n", refused->c_str());
  return refused.has_value();
}

experiments::TrainJobRequest request_of(const TrainArguments& args) {
  experiments::TrainJobRequest request;
  request.config = args.config;
  request.overrides = args.overrides;
  if (args.seed) request.overrides.push_back("seed=" + std::to_string(*args.seed));
  request.resume = args.resume;
  experiments::TrainingRunSettings& settings = request.settings;
  settings.run_dir = args.run_dir;
  settings.command_line = args.command_line;
  settings.allow_changes = args.allow_changes;
  settings.progress = args.progress == "live"    ? experiments::ProgressMode::kLive
                      : args.progress == "lines" ? experiments::ProgressMode::kLines
                      : args.progress == "none"  ? experiments::ProgressMode::kNone
                                                 : experiments::ProgressMode::kAuto;
  request.skipped = say_skipped;
  return request;
}

// Says how the job ended on this process and returns the exit code.
int report(const experiments::TrainJobOutcome& outcome) {
  if (!outcome.run) return outcome.exit_code;
  const experiments::TrainingRunResult& run = *outcome.run;
  const auto& t = run.training;
  if (outcome.rank > 0) {
    return t.interrupted && core::stop_signal() ? 128 + core::stop_signal() : kExitOk;
  }
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
          outcome.ranks > 1 ? "mpirun -np " + std::to_string(outcome.ranks) + " " : "";
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
                 "With --resume: train on although config.yaml (or --set) changed keys that alter "
                 "the run since the checkpoint (they are recorded in run_info.yaml)")
      ->needs(resume_option);
  // With --resume, as an edit of the run's config.yaml: keys that change what is trained need
  // --allow-changes.
  train
      ->add_option("--set", args->overrides,
                   "Override a config key, e.g. --set ppo.gamma=0.99 (repeatable); with --resume "
                   "it changes the run's config.yaml, e.g. --set train.total_steps=N (keys that "
                   "change what is trained need --allow-changes)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  resume_option->excludes(
      train->add_option("--seed", args->seed, "Experiment seed (same as --set seed=N)"));
  auto* run_dir_option = train->add_option(
      "--run-dir", args->run_dir,
      "Directory for this run, or with --seeds the study (default: runs/<name>-<timestamp>, "
      "runs/<name>-seeds-<timestamp>)");
  resume_option->excludes(run_dir_option);
  auto* seeds_option = train->add_option(
      "--seeds", args->seeds,
      "Train one run per seed, e.g. 1-5 or 1,3,7, as parallel processes in one study directory "
      "(resume it with --resume STUDY)");
  seeds_option->type_name("SEEDS")->excludes(resume_option);
  train->get_option("--seed")->excludes(seeds_option);
  train
      ->add_option("--jobs", args->jobs,
                   "With --seeds, or --resume of a study: runs at a time (default: one per "
                   "train.threads cores)")
      ->check(CLI::Range(1, 1024));
  train
      ->add_option("--progress", args->progress,
                   "Progress display: live (one line redrawn), lines (one every log_interval "
                   "steps), none, or auto (live on a terminal, else lines; lines in a job of "
                   "several ranks)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "live", "lines", "none"}));
  add_plugin_option(*train, args->plugins);
  return {train, [args] {
            experiments::follow_study_parent();
            if (!load_plugins(args->plugins, "train")) return kExitUsage;
            if (args->config.empty() && args->resume.empty()) {
              std::fprintf(stderr, "mnrl train: give an experiment file (mnrl train CONFIG) or a "
                                   "run to resume (mnrl train --resume RUN_DIR)\n");
              return kExitUsage;
            }
            const bool study = !args->seeds.empty() ||
                               (!args->resume.empty() && experiments::is_seed_study(args->resume));
            if (study && refuse_study_under_mpi()) return kExitUsage;
            if (!study && args->jobs > 0) {
              std::fprintf(stderr,
                           "mnrl train: --jobs goes with --seeds (or --resume of a "
                           "study): a lone run is one process\n");
              return kExitUsage;
            }
            if (!args->resume.empty() && study) return resume_seeds(*args);
            args->config = find_config(args->config);
            if (const std::string unknown = unknown_config_message(args->config);
                !unknown.empty()) {
              std::fprintf(stderr, "mnrl train: config error: %s\n", unknown.c_str());
              return kExitUsage;
            }
            if (!args->seeds.empty()) return train_seeds(*args);
            return report(experiments::run_train_job(request_of(*args)));
          }};
}

}  // namespace mnrl::apps
