#include <csignal>
#include <cstdio>
#include <exception>

#include "apps/commands.h"
#include "core/config.h"
#include "core/run_directory.h"
#include "core/state_stream.h"
#include "core/stop_signal.h"
#include "experiments/checkpoint.h"
#include "experiments/experiment_options.h"
#include "experiments/training_run.h"

namespace mnrl::apps {
namespace {

const char* signal_name(int signal) {
  return signal == SIGINT ? "Ctrl-C (SIGINT)" : signal == SIGTERM ? "SIGTERM" : "a signal";
}

experiments::TrainingRunResult start_or_resume(const TrainArguments& args,
                                               const experiments::TrainingRunSettings& settings,
                                               const experiments::ExperimentOptions& options) {
  if (args.resume.empty()) return experiments::run_training(options, settings);
  return experiments::resume_training(args.resume, settings, [](const std::string& reason) {
    std::fprintf(stderr, "mnrl train: skipping a checkpoint: %s\n", reason.c_str());
  });
}

}  // namespace

int train_command(const TrainArguments& args) {
  if (args.config.empty() && args.resume.empty()) {
    std::fprintf(stderr,
                 "mnrl train: give an experiment file (mnrl train CONFIG) or a run to resume "
                 "(mnrl train --resume RUN_DIR)\n");
    return kExitUsage;
  }
  std::vector<std::string> overrides = args.overrides;
  if (args.seed) overrides.push_back("seed=" + std::to_string(*args.seed));

  experiments::ExperimentOptions options;
  try {
    if (args.resume.empty()) options = experiments::load_experiment(args.config, overrides);
  } catch (const core::ConfigError& e) {
    std::fprintf(stderr, "mnrl train: config error: %s\n", e.what());
    return kExitUsage;
  }

  core::install_stop_handlers();
  try {
    experiments::TrainingRunSettings settings;
    settings.run_dir = args.run_dir;
    settings.command_line = args.command_line;
    const auto run = start_or_resume(args, settings, options);
    const auto& t = run.training;
    if (t.interrupted) {
      std::printf("stopped by %s at step %lld; checkpoint: %s\nresume with: mnrl train --resume %s\n",
                  signal_name(core::stop_signal()), static_cast<long long>(t.steps),
                  t.checkpoint.c_str(), run.run_dir.c_str());
      return 128 + core::stop_signal();
    }
    const auto& e = t.final_evaluation;
    std::printf("final evaluation: mean return %.2f ± %.2f over %d episodes (greedy actions)\n",
                e.mean_return, e.std_return, e.episodes);
    std::printf("trained %lld steps in %.2f s (%.0f steps/s); run directory: %s\n",
                static_cast<long long>(t.steps), t.seconds,
                t.seconds > 0 ? static_cast<double>(t.steps) / t.seconds : 0.0,
                run.run_dir.c_str());
    return kExitOk;
  } catch (const core::RunDirectoryError& e) {
    std::fprintf(stderr, "mnrl train: %s\n", e.what());
    return kExitUsage;
  } catch (const core::ConfigError& e) {
    std::fprintf(stderr, "mnrl train: config error in the run to resume: %s\n", e.what());
    return kExitUsage;
  } catch (const experiments::CheckpointError& e) {
    std::fprintf(stderr, "mnrl train: %s\n", e.what());
    return kExitUsage;
  } catch (const core::StateError& e) {
    std::fprintf(stderr, "mnrl train: the checkpoint does not fit the run's config: %s\n",
                 e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "\nmnrl train: error: %s\n", e.what());
    return kExitFailure;
  }
}

}  // namespace mnrl::apps
