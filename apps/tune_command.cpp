// `mnrl tune`: a config's hyperparameters searched over a space, trials as child processes,
// bad ones pruned early, the study shared by every process given the same --study.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "apps/cli.h"
#include "apps/commands.h"
#include "apps/config_path.h"
#include "apps/tune_plots.h"
#include "core/files.h"
#include "core/run_directory.h"
#include "experiments/config/experiment_options.h"
#include "experiments/studies/search_space.h"
#include "experiments/studies/seed_study.h"
#include "experiments/studies/tune_study.h"

namespace mnrl::apps {
namespace {

struct TuneArguments {
  std::string config;
  std::string space;
  std::string study_dir;
  std::vector<std::string> overrides;
  std::vector<std::string> plugins;
  int jobs = 0;  // 0: one per train.threads cores
  experiments::TuneStudy study;
};

// Every bound and choice of the space applied to the config, one at a time: a key the config
// does not have or a value it refuses is named before any trial runs.
void check_space(const TuneArguments& args, const std::vector<experiments::Parameter>& space) {
  for (const auto& [parameter, override_text] : experiments::extreme_overrides(space)) {
    std::vector<std::string> overrides = args.overrides;
    overrides.push_back(override_text);
    try {
      experiments::load_experiment(args.config, overrides);
    } catch (const core::ConfigError& e) {
      throw experiments::SearchSpaceError("search space " + args.space + " line " +
                                          std::to_string(parameter->line) + ", " +
                                          parameter->key + ": " + e.what());
    }
  }
}

int tune_command(TuneArguments& args) {
  if (const auto refused = experiments::why_no_study_here()) {
    std::fprintf(stderr, "mnrl tune: %s\n", refused->c_str());
    return kExitUsage;
  }
  args.config = find_config(args.config);
  if (const std::string unknown = unknown_config_message(args.config); !unknown.empty()) {
    std::fprintf(stderr, "mnrl tune: config error: %s\n", unknown.c_str());
    return kExitUsage;
  }
  experiments::TuneStudy& study = args.study;
  std::string name;
  try {
    const experiments::ExperimentOptions options =
        experiments::load_experiment(args.config, args.overrides);
    name = options.name;
    study.jobs = args.jobs > 0 ? args.jobs : experiments::default_jobs(options.train.threads);
    // ASHA's rungs on the evaluations' grid, the same for every trial (a trial's own first
    // evaluation comes after its first rollout, which differs with the rollout length).
    if (study.pruner.min_steps == 0) study.pruner.min_steps = options.train.eval_interval;
    if (study.pruner.kind != "none" && options.train.eval_interval <= 0) {
      throw core::ConfigError("train.eval_interval is 0: the " + study.pruner.kind +
                              " pruner needs evaluations along the way (set it, e.g. --set "
                              "train.eval_interval=" +
                              std::to_string(std::max<std::int64_t>(1, options.train.total_steps / 10)) +
                              ", or --pruner none)");
    }
    const std::vector<experiments::Parameter> space = experiments::read_search_space(args.space);
    check_space(args, space);
    study.resolved_config = experiments::resolved_config_yaml(options);
    study.space = core::read_regular_file(args.space, 1 << 20, "search space");
  } catch (const core::ConfigError& e) {
    std::fprintf(stderr, "mnrl tune: config error: %s\n", e.what());
    return kExitUsage;
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "mnrl tune: %s\n", e.what());
    return kExitUsage;
  }
  study.program = std::filesystem::read_symlink("/proc/self/exe").string();
  study.config = std::filesystem::absolute(args.config).string();
  for (const std::string& plugin : args.plugins) {
    study.plugins.push_back(std::filesystem::absolute(plugin).string());
  }
  std::filesystem::path dir = args.study_dir;
  try {
    if (dir.empty()) dir = core::create_run_directory("", name + "-tune");
    std::printf("tuning %s: %d trials, %d at a time here; study %s (each trial's output in "
                "trials/trial_N.log)\n",
                args.config.c_str(), study.trials, study.jobs, dir.c_str());
    std::fflush(stdout);
    const int status = experiments::run_tune_study(study, dir, stdout);
    try {
      std::printf("plots: %s in %s\n", draw_tune_plots(dir).c_str(), dir.c_str());
    } catch (const std::runtime_error& e) {
      std::printf("no plots (%s); trials.csv has every trial\n", e.what());
    }
    return status;
  } catch (const experiments::StudyMismatch& e) {
    std::fprintf(stderr, "mnrl tune: %s\n", e.what());
    return kExitUsage;
  } catch (const core::RunDirectoryError& e) {
    std::fprintf(stderr, "mnrl tune: %s\n", e.what());
    return kExitUsage;
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "mnrl tune: %s\n", e.what());
    return kExitFailure;
  }
}

}  // namespace

Command add_tune_command(CLI::App& mnrl) {
  auto args = std::make_shared<TuneArguments>();
  CLI::App* tune = mnrl.add_subcommand(
      "tune", "Search a config's hyperparameters: trials as parallel runs, bad ones pruned "
              "early, one study shared by every process given the same --study");
  tune->add_option("config", args->config, "Experiment YAML file, or a bundled config's name")
      ->required();
  tune->add_option("--space", args->space,
                   "Search space YAML: config keys to ranges, e.g. ppo.learning_rate: "
                   "{type: log_uniform, low: 1.0e-5, high: 1.0e-2} (uniform, log_uniform, int, "
                   "categorical)")
      ->required();
  tune->add_option("--trials", args->study.trials, "Trials in the study (over every process)")
      ->capture_default_str()
      ->check(in_range(1, 100000));
  tune->add_option("--jobs", args->jobs,
                   "Trials at a time in this process (default: one per train.threads cores)")
      ->check(in_range(1, 1024));
  tune->add_option("--study", args->study_dir,
                   "Study directory: created where missing or empty, joined where it holds this "
                   "study (default: runs/<name>-tune-<timestamp>)");
  tune->add_option("--set", args->overrides, "Override a key of the base config (repeatable)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  tune->add_option("--seed", args->study.seed,
                   "Study seed: trial N trains with seed + N and draws its parameters from it")
      ->capture_default_str();
  tune->add_option("--sampler", args->study.sampler,
                   "tpe (a tree-structured Parzen estimator after 10 random trials, as Optuna's "
                   "default) or random")
      ->capture_default_str()
      ->check(CLI::IsMember({"tpe", "random"}));
  tune->add_option("--pruner", args->study.pruner.kind,
                   "median (stop a trial whose best evaluation is below the median of the "
                   "complete trials' at that step), asha (successive halving: go on past each "
                   "rung only among the best 1/--reduction-factor there) or none")
      ->capture_default_str()
      ->check(CLI::IsMember({"median", "asha", "none"}));
  tune->add_option("--reduction-factor", args->study.pruner.reduction_factor,
                   "asha: rungs this factor apart in steps, 1/factor of the trials going on")
      ->capture_default_str()
      ->check(in_range(2, 100));
  tune->add_option("--min-steps", args->study.pruner.min_steps,
                   "asha: steps of the first rung (0: train.eval_interval)")
      ->capture_default_str()
      ->check(in_range(0));
  tune->add_option("--startup-trials", args->study.pruner.startup_trials,
                   "median: complete trials before the pruner stops any")
      ->capture_default_str()
      ->check(in_range(0, 100000));
  tune->add_option("--warmup-steps", args->study.pruner.warmup_steps,
                   "median: steps a trial trains before the pruner may stop it")
      ->capture_default_str()
      ->check(in_range(0));
  tune->add_option("--worker-timeout", args->study.worker_timeout_seconds,
                   "Seconds another host's mnrl tune on the study may go silent before its "
                   "trials are taken over (on this host a process that is gone is seen at once)")
      ->capture_default_str()
      ->check(CLI::Range(10.0, 86400.0));
  add_plugin_option(*tune, args->plugins);
  return {tune, [args] {
            if (!load_plugins(args->plugins, "tune")) return kExitUsage;
            return tune_command(*args);
          }};
}

}  // namespace mnrl::apps
