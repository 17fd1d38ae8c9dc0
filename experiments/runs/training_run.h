#pragma once

#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "experiments/metrics/console_reporter.h"
#include "experiments/config/experiment_options.h"
#include "experiments/training/training.h"

namespace mnrl::distributed {
class Communicator;
}

namespace mnrl::experiments {

struct TrainingRunSettings {
  std::string run_dir;       // empty = runs/<name>-<timestamp>
  std::string command_line;  // recorded in run_info.yaml
  // Resume even though config.yaml changed keys that alter the run (see resume_training).
  bool allow_changes = false;
  // kAuto: lines under mpirun, whose ranks' output looks like a terminal even when mpirun's
  // goes to a file; else live on a terminal, lines otherwise.
  ProgressMode progress = ProgressMode::kAuto;
  std::FILE* console = stdout;
};

struct TrainingRunResult {
  std::filesystem::path run_dir;
  TrainingResult training;
};

// Who does what in a job of `ranks` ranks over `backend`, for a run's first line: "8 envs";
// "8 envs x 4 ranks (mpi)" (data parallel); where the first ranks step no envs, which ranks
// learn or serve: "1 learner (rank 0) + 3 actors x 8 envs (mpi)" (IMPALA, Ape-X),
// "1 parameter server (rank 0) + 3 workers x 8 envs (mpi)" (A3C).
std::string job_layout(const ExperimentOptions& options, int ranks, const std::string& backend);

// A whole `mnrl train`: creates the run directory, records config.yaml (resolved), run_info.yaml
// (command line, version, source revision, start time) and metrics.csv, trains with the live
// console line (and a TensorBoard event file with logging.tensorboard), writes checkpoints
// (checkpoint.*, at the end and when stopped) and summary.yaml at the end (also after Ctrl-C).
// Options must already be validated: nothing here should fail on user input except the run
// directory itself and distributed.backend (distributed::CommunicatorError).
//
// Under mpirun every rank calls it and trains over the communicator of distributed.backend;
// rank 0 alone makes and writes the run directory and prints. resume_training() reads the run
// directory on every rank, which must therefore be on a file system all ranks see.
TrainingRunResult run_training(const ExperimentOptions& options,
                               const TrainingRunSettings& settings);

// `mnrl train --resume RUN_DIR`: continues the run in `run_dir` with its config.yaml from its
// newest checkpoint that opens (each newer one that does not is reported through `skipped`).
// Once the checkpoint has loaded: metrics.csv keeps its rows up to the checkpoint's step and
// goes on, run_info.yaml gets a `resumed:` entry, and skipped newer checkpoints are renamed
// .unusable-step_*; checkpoints and summary.yaml are written as by run_training.
// A config.yaml edited since the checkpoint may lengthen the run or change its schedules
// (train.total_steps, evaluation, logging, checkpoints, distributed.timeout); any other changed
// key alters what is trained, and is refused (RunDirectoryError listing each change) unless
// settings.allow_changes, which records them in run_info.yaml. `overrides` (--set KEY=VALUE on
// the resume) change config.yaml's keys as an edit would, under the same rule; once the
// checkpoint has loaded, config.yaml is rewritten with them, so that they hold for the rest of
// the run and later resumes. Throws
// core::RunDirectoryError (not a run directory), core::ConfigError (its config.yaml),
// CheckpointError (no usable checkpoint, or the run is complete) or core::StateError (a
// checkpoint that does not fit the config) before anything in the run directory changes.
TrainingRunResult resume_training(const std::filesystem::path& run_dir,
                                  const TrainingRunSettings& settings,
                                  const std::function<void(const std::string&)>& skipped,
                                  const std::vector<std::string>& overrides = {});

}  // namespace mnrl::experiments
