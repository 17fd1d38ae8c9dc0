#include "experiments/runs/train_job.h"

#include <cstdio>
#include <exception>
#include <memory>
#include <string>

#include "core/config.h"
#include "core/exit_codes.h"
#include "core/run_directory.h"
#include "core/state_stream.h"
#include "core/stop_signal.h"
#include "core/text.h"
#include "distributed/communicator.h"
#include "distributed/job.h"
#include "envs/plugin_call.h"
#include "experiments/checkpoints/checkpoint.h"
#include "experiments/config/rank_agreement.h"

namespace mnrl::experiments {
namespace {

// Loads the experiment on every rank. Returns false, having said why, unless every rank could:
// a config or plugin that one rank cannot load (a file missing on one node) stops all of them
// before any work. Rank 0 speaks for an error every rank shares.
bool load_on_every_rank(const TrainJobRequest& request, distributed::Job& job,
                        ExperimentOptions& options) {
  std::string error;
  try {
    if (request.resume.empty()) options = load_experiment(request.config, request.overrides);
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

// Reports a failure. A job of several ranks ends at once on every rank; one process returns
// `code`.
int fail(distributed::Job& job, int code, const std::string& message) {
  std::fflush(stdout);
  std::fprintf(stderr, "%smnrl train%s: %s\n", code == core::kExitFailure ? "\n" : "",
               job.rank_label().c_str(), message.c_str());
  if (job.size() > 1) {
    std::fprintf(stderr, "mnrl train%s: ending the job\n", job.rank_label().c_str());
    job.abort(code);
  }
  return code;
}

// The exit code of the exception being handled, said as fail() says it (called in a catch).
int exit_code_of_current_exception(distributed::Job& job) {
  try {
    throw;
  } catch (const RanksDisagree& e) {
    // Every rank knows, and none waits for another: each ends, rank 0 says why.
    if (job.rank() == 0) std::fprintf(stderr, "mnrl train: %s\n", e.what());
    return core::kExitUsage;
  } catch (const core::RunDirectoryError& e) {
    return fail(job, core::kExitUsage, e.what());
  } catch (const core::ConfigError& e) {
    return fail(job, core::kExitUsage, std::string("config error: ") + e.what());
  } catch (const distributed::CommunicatorError& e) {
    return fail(job, core::kExitUsage, e.what());
  } catch (const CheckpointError& e) {
    return fail(job, core::kExitUsage, e.what());
  } catch (const core::StateError& e) {
    return fail(job, core::kExitUsage,
                std::string("the checkpoint does not fit the run's config: ") + e.what());
  } catch (const std::exception& e) {
    return fail(job, core::kExitFailure, std::string("error: ") + e.what());
  }
}

}  // namespace

TrainJobOutcome run_train_job(const TrainJobRequest& request) {
  std::unique_ptr<distributed::Job> job;
  try {
    job = std::make_unique<distributed::Job>();
  } catch (const distributed::CommunicatorError& e) {
    std::fprintf(stderr, "mnrl train: %s\n", e.what());
    return {core::kExitUsage, std::nullopt};
  }
  envs::install_plugin_call_reporting();  // again: MPI's initialization replaced the handlers
  ExperimentOptions options;
  if (!load_on_every_rank(request, *job, options)) {
    return {core::kExitUsage, std::nullopt, job->rank(), job->size()};
  }
  core::install_stop_handlers();
  TrainJobOutcome outcome{core::kExitOk, std::nullopt, job->rank(), job->size()};
  try {
    outcome.run = request.resume.empty() ? run_training(options, request.settings)
                                         : resume_training(request.resume, request.settings,
                                                           request.skipped, request.overrides);
  } catch (...) {
    outcome.exit_code = exit_code_of_current_exception(*job);
  }
  return outcome;
}

}  // namespace mnrl::experiments
