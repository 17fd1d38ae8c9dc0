#include <cstdio>
#include <exception>

#include "apps/commands.h"
#include "core/config.h"
#include "core/run_directory.h"
#include "core/stop_signal.h"
#include "experiments/experiment_options.h"
#include "experiments/training_run.h"

namespace mnrl::apps {

int train_command(const TrainArguments& args) {
  std::vector<std::string> overrides = args.overrides;
  if (args.seed) overrides.push_back("seed=" + std::to_string(*args.seed));

  experiments::ExperimentOptions options;
  try {
    options = experiments::load_experiment(args.config, overrides);
  } catch (const core::ConfigError& e) {
    std::fprintf(stderr, "mnrl train: config error: %s\n", e.what());
    return kExitUsage;
  }

  core::install_stop_handlers();
  try {
    experiments::TrainingRunSettings settings;
    settings.run_dir = args.run_dir;
    settings.command_line = args.command_line;
    const auto run = experiments::run_training(options, settings);
    const auto& t = run.training;
    const auto& e = t.final_evaluation;
    std::printf("final evaluation: mean return %.2f ± %.2f over %d episodes (greedy actions)\n",
                e.mean_return, e.std_return, e.episodes);
    std::printf("trained %lld steps in %.2f s (%.0f steps/s); run directory: %s\n",
                static_cast<long long>(t.steps), t.seconds,
                t.seconds > 0 ? static_cast<double>(t.steps) / t.seconds : 0.0,
                run.run_dir.c_str());
    if (t.interrupted) {
      std::printf("stopped early by signal %d; metrics and summary are saved\n",
                  core::stop_signal());
      return 128 + core::stop_signal();
    }
    return kExitOk;
  } catch (const core::RunDirectoryError& e) {
    std::fprintf(stderr, "mnrl train: %s\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "\nmnrl train: error: %s\n", e.what());
    return kExitFailure;
  }
}

}  // namespace mnrl::apps
