#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "experiments/studies/trial_pruner.h"

namespace mnrl::experiments {

// `mnrl tune CONFIG --space SPACE.yaml --trials T --jobs N --study STUDY`: trials of CONFIG
// with parameters drawn from the search space, each a child process (`mnrl train
// STUDY/config.yaml --set KEY=VALUE... --seed S --run-dir STUDY/trials/trial_N`), N at a time.
// Parameters come from the TPE sampler (tpe_sampler.h) or uniformly at random. The objective is
// a trial's final evaluation (its mean return, higher is better); its
// evaluations along the way (train.eval_interval) feed the pruner, which stops a bad trial
// early (it checkpoints and ends, as on Ctrl-C).
//
// The study directory holds config.yaml (the resolved base config), space.yaml, tune.yaml (the
// study's settings) and journal.yaml (trial_journal.h), so several `mnrl tune` processes, on
// one host or several sharing the directory, work on one study: each takes the next trial
// number under the journal's lock until T trials exist. A stopped trial (Ctrl-C) is resumed
// from its checkpoint by the next `mnrl tune` on the study. At the end: trials.csv and best.yaml
// (the best trial's whole config, ready for `mnrl train`).
struct TuneStudy {
  std::string program;          // the mnrl executable the trials run
  std::string config;           // the experiment file given, for the record
  std::string resolved_config;  // its resolved YAML: STUDY/config.yaml
  std::string space;            // the search space file's text: STUDY/space.yaml
  std::vector<std::string> plugins;
  int trials = 20;  // in the study, over every process
  int jobs = 1;     // this process's trials at a time
  std::uint64_t seed = 0;  // trial N trains with seed + N and draws its parameters from it
  std::string sampler = "tpe";  // tpe | random
  // How long another host's process may go without a heartbeat before its trials are taken
  // over (this process beats at a quarter of it, at most every 10 s).
  double worker_timeout_seconds = 120.0;
  PrunerOptions pruner;
};

// Joins the study in `study_dir` (creating it where it does not exist or is empty), runs trials
// until the study has its trials, then writes trials.csv and best.yaml. Returns the exit status
// (0; 128 + signal when stopped; 1 when a trial failed). Throws StudyMismatch where the
// directory holds another study (another config, search space or settings), or is not a study.
class StudyMismatch : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
int run_tune_study(const TuneStudy& study, const std::filesystem::path& study_dir,
                   std::FILE* console);

}  // namespace mnrl::experiments
