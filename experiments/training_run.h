#pragma once

#include <cstdio>
#include <filesystem>
#include <string>

#include "experiments/experiment_options.h"
#include "experiments/training.h"

namespace mnrl::experiments {

struct TrainingRunSettings {
  std::string run_dir;       // empty = runs/<name>-<timestamp>
  std::string command_line;  // recorded in run_info.yaml
  std::FILE* console = stdout;
};

struct TrainingRunResult {
  std::filesystem::path run_dir;
  TrainingResult training;
};

// A whole `mnrl train`: creates the run directory, records config.yaml (resolved), run_info.yaml
// (command line, version, source revision, start time) and metrics.csv, trains with the live
// console line, and writes summary.yaml at the end (also after Ctrl-C). Options must already be
// validated: nothing here should fail on user input except the run directory itself.
TrainingRunResult run_training(const ExperimentOptions& options,
                               const TrainingRunSettings& settings);

}  // namespace mnrl::experiments
