#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mnrl::experiments {

// `mnrl train CONFIG --seeds 1-5 --jobs N`: one config trained with several seeds, each run a
// child process (`mnrl train CONFIG --seed K --run-dir STUDY/seed_K`), N at a time, under one
// study directory whose study.yaml records the config, the overrides and each seed's state
// (pending, running, done, stopped, failed), rewritten atomically as they change.
//
// Stopping (Ctrl-C, SIGTERM, ...): the children run in process groups of their own, so the
// terminal's signal reaches the study alone, which passes it once to each running child (each
// then checkpoints and stops, as a lone run does), starts no more, and waits for them all. A
// resume (`mnrl train --resume STUDY`) resumes the stopped seeds from their checkpoints, starts
// the pending ones anew, and leaves the done ones.
struct SeedStudy {
  std::string program;  // the mnrl executable the children run
  std::string config;   // the experiment file, as the children are given it
  std::vector<std::string> overrides;  // --set key=value, in order
  std::vector<std::string> plugins;    // --plugin PATH
  std::vector<std::int64_t> seeds;
  int jobs = 1;  // children at a time
};

// Seeds from "1-5", "1,3,7" or "1-3,8" (each at least 0, none twice); nullopt where `text` is
// not such a list.
std::optional<std::vector<std::int64_t>> parse_seeds(const std::string& text);

// Children at a time when --jobs is not given: one per `threads_per_run` cores, at least one.
int default_jobs(int threads_per_run);

// Whether `dir` holds a study (its study.yaml).
bool is_seed_study(const std::filesystem::path& dir);

// Runs `study` in `study_dir` (a new, empty directory), writing progress and each seed's final
// return to `console` (and summary.csv). Returns the exit status: 0 when every seed is done, 128 +
// signal when stopped, else the first failed child's status.
int run_seed_study(const SeedStudy& study, const std::filesystem::path& study_dir,
                   std::FILE* console);

// Goes on with the study in `study_dir` (its seeds that are not done), `jobs` at a time
// (0: as recorded), through `program`. Throws std::runtime_error for a directory without a
// readable study.yaml.
int resume_seed_study(const std::filesystem::path& study_dir, const std::string& program,
                      int jobs, std::FILE* console);

}  // namespace mnrl::experiments
