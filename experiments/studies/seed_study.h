#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mnrl::experiments {

// `mnrl train CONFIG --seeds 1-5 --jobs N`: one config trained with several seeds, each run a
// child process (`mnrl train STUDY/config.yaml --seed K --run-dir STUDY/seed_K`), N at a time,
// under one study directory. STUDY/config.yaml is the resolved config (the file with its --set
// overrides applied), written once: an edit of the original file never reaches a seed started
// later. study.yaml records where it came from and each seed's state (pending, running, done,
// stopped, failed), rewritten atomically as they change; one process at a time drives a study
// (a lock on STUDY/.lock).
//
// Stopping (Ctrl-C, SIGTERM, ...): see child_runs.h. The study asks each running child once to
// stop (each then checkpoints and stops, as a lone run does), starts no more, and waits for them
// all. A resume (`mnrl train --resume STUDY`) takes each seed's state from its run directory:
// trained to the end (summary.yaml) is done, one with a checkpoint resumes from it, one that
// never wrote a checkpoint is moved aside (seed_K.incomplete) and starts anew, as do the seeds
// never started.
struct SeedStudy {
  std::string program;                 // the mnrl executable the children run
  std::string config;                  // the experiment file given, for the record
  std::string resolved_config;         // its resolved YAML (overrides applied): STUDY/config.yaml
  std::vector<std::string> overrides;  // --set key=value, in order, for the record
  std::vector<std::string> plugins;    // --plugin PATH, given to every child
  std::vector<std::int64_t> seeds;
  int jobs = 1;  // children at a time
};

// Seeds from "1-5", "1,3,7" or "1-3,8" (each at least 0, none twice); nullopt where `text` is
// not such a list.
std::optional<std::vector<std::int64_t>> parse_seeds(const std::string& text);

// Children at a time when --jobs is not given: one per `threads_per_run` of the cores this
// process may run on (its affinity: taskset, a Slurm allocation), at least one.
int default_jobs(int threads_per_run);

// Why a study cannot be driven from this process (one rank of a job mpirun or srun started:
// a study's seeds are processes it starts itself), or nullopt.
std::optional<std::string> why_no_study_here();

// The run directories of a study's seeds that started (STUDY/seed_K), in study.yaml's order,
// each with its seed. Throws std::runtime_error where study.yaml cannot be read.
std::vector<std::pair<std::int64_t, std::filesystem::path>> study_runs(
    const std::filesystem::path& study_dir);

// How an interrupted run goes on, from what its directory holds: trained to the end
// (summary.yaml) is done, one with a checkpoint resumes from it, one that never wrote a
// checkpoint is moved aside (RUN.incomplete, kept for inspection) and starts anew, as does one
// never started. Busy while a process still trains there (a child of a killed study writing its
// last checkpoint): nothing is touched.
enum class RunStart { kDone, kResume, kFresh, kBusy };
RunStart how_run_goes_on(const std::filesystem::path& run_dir);

// The mean return of a run's final evaluation (its summary.yaml); nullopt for a run that did not
// finish it (stopped, still training).
std::optional<double> final_mean_return(const std::filesystem::path& run_dir);

// Whether `dir` holds a study (its study.yaml).
bool is_seed_study(const std::filesystem::path& dir);

// Runs `study` in `study_dir` (a new, empty directory), writing progress and each seed's final
// return to `console` (and summary.csv). Returns the exit status: 0 when every seed is done, 128 +
// signal when stopped, else 1 (a seed failed: its log says why). Throws
// core::RunDirectoryError where another process drives the study.
int run_seed_study(const SeedStudy& study, const std::filesystem::path& study_dir,
                   std::FILE* console);

// Goes on with the study in `study_dir` (its seeds that are not done), `jobs` at a time
// (0: as recorded), through `program`. Throws std::runtime_error for a directory without a
// valid study.yaml or config.yaml, or one another process drives.
int resume_seed_study(const std::filesystem::path& study_dir, const std::string& program,
                      int jobs, std::FILE* console);

}  // namespace mnrl::experiments
