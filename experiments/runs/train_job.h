#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "experiments/runs/training_run.h"

namespace mnrl::experiments {

// What `mnrl train` asks for.
struct TrainJobRequest {
  std::string config;                  // the experiment file; empty when resuming
  std::vector<std::string> overrides;  // KEY=VALUE, applied in order
  std::string resume;                  // a run directory to go on with, instead of `config`
  TrainingRunSettings settings;
  std::function<void(const std::string&)> skipped;  // why a newer checkpoint was not resumed
};

// How the job ended on this process.
struct TrainJobOutcome {
  // core::kExitOk when `run` is set; else kExitUsage (bad input: nothing was run or written)
  // or kExitFailure (failed while running).
  int exit_code = 0;
  std::optional<TrainingRunResult> run;  // training ran to its end or to a stop signal
  int rank = 0;                          // this process's rank in the job
  int ranks = 1;                         // processes in the job
};

// `mnrl train` as the library runs it, in one process or on every rank of an mpirun job: loads
// the experiment on every rank (a config or plugin one rank cannot load stops all of them
// before any work), then trains (run_training) or resumes (resume_training) with stop signals
// handled. A failure is printed to stderr ("mnrl train (rank R of N): ..."; rank 0 speaks for
// an error every rank shares) and, in a job of several ranks, ends every rank at once, since
// the others may be waiting for this one in a collective.
TrainJobOutcome run_train_job(const TrainJobRequest& request);

}  // namespace mnrl::experiments
