#include "experiments/studies/seed_study.h"

#include <sched.h>
#include <sys/wait.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "core/exit_codes.h"
#include "core/files.h"
#include "core/run_directory.h"
#include "core/yaml_writer.h"
#include "distributed/launcher.h"
#include "experiments/checkpoints/checkpoint.h"
#include "experiments/studies/child_runs.h"

namespace mnrl::experiments {
namespace fs = std::filesystem;
namespace {

constexpr const char* kStudyFile = "study.yaml";
constexpr const char* kConfigFile = "config.yaml";
constexpr double kProgressSeconds = 10.0;  // between progress lines
constexpr std::uintmax_t kMaxStudyFileBytes = 1 << 20;  // far above 10,000 seeds' lines
constexpr int kMaxJobs = 1024;                          // as --jobs allows

// A seed's run within the study.
struct SeedRun {
  std::int64_t seed = 0;
  std::string status = "pending";  // pending | running | done | stopped | failed
  int exit_status = 0;             // the child's, once it ended
  pid_t pid = 0;                   // while running
};

const std::set<std::string> kStatuses{"pending", "running", "done", "stopped", "failed"};

fs::path run_dir_of(const fs::path& study_dir, std::int64_t seed) {
  return study_dir / ("seed_" + std::to_string(seed));
}

fs::path log_of(const fs::path& study_dir, std::int64_t seed) {
  return study_dir / ("seed_" + std::to_string(seed) + ".log");
}

void write_study(const fs::path& dir, const SeedStudy& study, const std::vector<SeedRun>& runs) {
  core::YamlWriter out;
  out.key("config").text(study.config).key("jobs").integer(study.jobs);
  out.key("overrides").begin_list();
  for (const std::string& o : study.overrides) out.text(o);
  out.end_list().key("plugins").begin_list();
  for (const std::string& p : study.plugins) out.text(p);
  out.end_list().key("seeds").begin_list();
  for (const SeedRun& run : runs) {
    out.begin_map(/*flow=*/true).key("seed").integer(run.seed).key("status").text(run.status);
    out.key("exit_status").integer(run.exit_status).end_map();
  }
  out.end_list();
  core::write_file_atomically(dir / kStudyFile, out.str());
}

void require(bool holds, const std::string& what) {
  if (!holds) throw std::runtime_error(what);
}

// study.yaml as write_study() writes it, each value checked (the file may have been edited).
std::vector<SeedRun> read_study(const fs::path& dir, SeedStudy& study) {
  const fs::path path = dir / kStudyFile;
  try {
    std::error_code error;
    const std::uintmax_t bytes = fs::file_size(path, error);
    require(!error, "it cannot be read");
    require(bytes <= kMaxStudyFileBytes,
            "it holds " + std::to_string(bytes) + " bytes, more than a study ever writes");
    require(fs::is_regular_file(dir / kConfigFile, error),
            "its config.yaml is missing from " + dir.string());
    const YAML::Node root = YAML::LoadFile(path.string());
    study.config = root["config"].as<std::string>();
    study.jobs = root["jobs"].as<int>();
    require(study.jobs >= 1 && study.jobs <= kMaxJobs,
            "jobs: " + std::to_string(study.jobs) + " is outside [1, 1024]");
    for (const auto& o : root["overrides"]) study.overrides.push_back(o.as<std::string>());
    for (const auto& p : root["plugins"]) study.plugins.push_back(p.as<std::string>());
    std::vector<SeedRun> runs;
    std::set<std::int64_t> seen;
    for (const auto& s : root["seeds"]) {
      SeedRun run;
      run.seed = s["seed"].as<std::int64_t>();
      run.status = s["status"].as<std::string>();
      run.exit_status = s["exit_status"].as<int>();
      const std::string which = "seeds: seed " + std::to_string(run.seed);
      require(run.seed >= 0, which + " is negative");
      require(seen.insert(run.seed).second, which + " is listed twice");
      require(kStatuses.count(run.status) > 0,
              which + " has the unknown status '" + run.status + "'");
      study.seeds.push_back(run.seed);
      runs.push_back(run);
    }
    require(!runs.empty(), "it lists no seeds");
    return runs;
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot read the study '" + path.string() + "': " + e.what());
  }
}

// The child's command line: a fresh run of `seed`, or a resume of its run directory.
std::vector<std::string> child_arguments(const SeedStudy& study, const fs::path& study_dir,
                                         std::int64_t seed, bool resume) {
  std::vector<std::string> args{study.program, "train"};
  if (resume) {
    args.insert(args.end(), {"--resume", run_dir_of(study_dir, seed).string()});
  } else {
    args.insert(args.end(), {(study_dir / kConfigFile).string(), "--seed", std::to_string(seed),
                             "--run-dir", run_dir_of(study_dir, seed).string()});
  }
  for (const std::string& p : study.plugins) args.insert(args.end(), {"--plugin", p});
  args.insert(args.end(), {"--progress", "lines"});
  return args;
}

// The step of the last row of a run's metrics.csv (0 before any).
std::int64_t last_step(const fs::path& run_dir) {
  std::ifstream in(run_dir / "metrics.csv", std::ios::binary);
  if (!in) return 0;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.seekg(std::max<std::streamoff>(0, size - 512));
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  try {
    return std::stoll(last);
  } catch (const std::exception&) {
    return 0;
  }
}

void say_progress(std::FILE* console, const fs::path& dir, const std::vector<SeedRun>& runs) {
  std::map<std::string, int> counts;
  std::string running;
  for (const SeedRun& run : runs) {
    ++counts[run.status];
    if (run.status == "running") {
      running += (running.empty() ? "" : ", ") + std::string("seed ") + std::to_string(run.seed) +
                 " at step " + std::to_string(last_step(run_dir_of(dir, run.seed)));
    }
  }
  const std::string failed =
      counts["failed"] > 0 ? ", " + std::to_string(counts["failed"]) + " failed" : "";
  std::fprintf(console, "seeds: %d done, %d running%s%s%s, %d waiting%s\n", counts["done"],
               counts["running"], running.empty() ? "" : " (", running.c_str(),
               running.empty() ? "" : ")", counts["pending"] + counts["stopped"], failed.c_str());
  std::fflush(console);
}

// Each seed's final return, their mean and spread; and summary.csv beside study.yaml.
void say_summary(std::FILE* console, const fs::path& dir, const std::vector<SeedRun>& runs) {
  std::ostringstream csv;
  csv << "seed,status,final_mean_return\n";
  std::vector<double> returns;
  for (const SeedRun& run : runs) {
    const long long seed = run.seed;
    const std::optional<double> r =
        run.status == "done" ? final_mean_return(run_dir_of(dir, run.seed)) : std::nullopt;
    csv << run.seed << ',' << run.status << ',';
    if (r) {
      csv << *r;
      returns.push_back(*r);
      std::fprintf(console, "seed %lld: final mean return %.2f\n", seed, *r);
    } else if (run.status == "done") {
      std::fprintf(console, "seed %lld: trained, its final evaluation stopped (mnrl eval %s)\n",
                   seed, run_dir_of(dir, run.seed).c_str());
    } else if (run.status == "failed") {
      std::fprintf(console, "seed %lld: failed with exit status %d (see %s)\n", seed,
                   run.exit_status, log_of(dir, run.seed).c_str());
    } else {
      std::fprintf(console, "seed %lld: %s\n", seed, run.status.c_str());
    }
    csv << '\n';
  }
  if (!returns.empty()) {
    double mean = 0.0, squares = 0.0;
    for (const double r : returns) mean += r / static_cast<double>(returns.size());
    for (const double r : returns) squares += (r - mean) * (r - mean);
    const double spread =
        returns.size() > 1 ? std::sqrt(squares / static_cast<double>(returns.size() - 1)) : 0.0;
    std::fprintf(console, "final mean return over %zu seeds: %.2f ± %.2f (std across seeds)\n",
                 returns.size(), mean, spread);
  }
  core::write_file_atomically(dir / "summary.csv", csv.str());
}

// Whether the run trained to its end, as its summary.yaml says (its final evaluation may have
// been stopped).
bool training_complete(const fs::path& run_dir) {
  try {
    const YAML::Node summary = YAML::LoadFile((run_dir / "summary.yaml").string());
    return summary["training_complete"].as<bool>();
  } catch (const std::exception&) {
    return false;
  }
}

// How a seed's run goes on, once no process trains in its directory any more: the seeds of a
// study killed outright stop by themselves (PR_SET_PDEATHSIG), writing a last checkpoint.
RunStart start_when_free(const fs::path& run_dir, std::FILE* console) {
  constexpr int kWaitSeconds = 120;
  for (int waited = 0;; ++waited) {
    const RunStart start = how_run_goes_on(run_dir);
    if (start != RunStart::kBusy) return start;
    if (waited == 0) {
      std::fprintf(console, "waiting for the process still training in %s to stop\n",
                   run_dir.c_str());
      std::fflush(console);
    }
    if (waited == kWaitSeconds * 10) {
      throw std::runtime_error("run directory '" + run_dir.string() +
                               "' is still in use by another process after " +
                               std::to_string(kWaitSeconds) + " s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// Records how `run`'s child ended.
void record_end(SeedRun& run, int wait_status, bool stopping) {
  run.exit_status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
  run.status = run.exit_status == 0                ? "done"
               : run.exit_status > 128 && stopping ? "stopped"
                                                   : "failed";
  run.pid = 0;
}

// Asks every running child to stop and waits for them: where the study cannot go on.
void stop_and_wait(std::vector<SeedRun>& runs) {
  for (SeedRun& run : runs) {
    if (run.status != "running") continue;
    stop_child(run.pid, /*insist=*/false);
    int status = 0;
    while (::waitpid(run.pid, &status, 0) < 0 && errno == EINTR) {
    }
    record_end(run, status, /*stopping=*/true);
  }
}

// Runs the seeds of `runs` that are not done, `study.jobs` at a time, until all ended or a stop
// was asked for and the running ones ended.
int drive(const SeedStudy& study, const fs::path& dir, std::vector<SeedRun>& runs,
          std::FILE* console) {
  const core::RunDirectoryLock lock(dir);
  StudyStopSignals signals;
  std::set<std::int64_t> resumable;
  for (SeedRun& run : runs) {
    if (run.status == "done") continue;
    const RunStart start = start_when_free(run_dir_of(dir, run.seed), console);
    run.status = start == RunStart::kDone ? "done" : "pending";
    if (start == RunStart::kResume) resumable.insert(run.seed);
  }
  write_study(dir, study, runs);
  bool forwarded = false;
  auto last_progress = std::chrono::steady_clock::now();
  try {
    for (;;) {
      const bool stopping = signals.first() != 0;
      if (stopping && !forwarded) {
        std::fprintf(console,
                     "stopping: each running seed writes a checkpoint and ends (Ctrl-C "
                     "again ends them at once)\n");
        std::fflush(console);
      }
      const bool insisted = signals.insisted();
      int running = 0;
      for (const SeedRun& run : runs) {
        if (run.status != "running") continue;
        ++running;
        if (stopping && !forwarded) stop_child(run.pid, /*insist=*/false);
        if (insisted) stop_child(run.pid, /*insist=*/true);
      }
      forwarded = stopping;
      bool changed = false;
      for (SeedRun& run : runs) {
        if (stopping || running >= study.jobs || run.status != "pending") continue;
        try {
          run.pid =
              spawn_child(child_arguments(study, dir, run.seed, resumable.count(run.seed) > 0),
                          log_of(dir, run.seed));
          run.status = "running";
          ++running;
        } catch (const std::runtime_error& e) {
          std::fprintf(console, "seed %lld: %s\n", static_cast<long long>(run.seed), e.what());
          run.status = "failed";
          run.exit_status = 127;  // as a shell says of a program it cannot run
        }
        changed = true;
      }
      if (running == 0) break;
      for (SeedRun& run : runs) {
        if (run.status != "running") continue;
        int status = 0;
        const pid_t pid = ::waitpid(run.pid, &status, WNOHANG);
        if (pid == run.pid) {
          record_end(run, status, signals.first() != 0);
          changed = true;
        } else if (pid < 0 && errno != EINTR) {
          std::fprintf(console, "seed %lld: lost its process %d: %s\n",
                       static_cast<long long>(run.seed), static_cast<int>(run.pid),
                       std::strerror(errno));
          run.status = "failed";
          run.exit_status = 1;
          run.pid = 0;
          changed = true;
        }
      }
      if (changed) {
        write_study(dir, study, runs);
        continue;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      const auto now = std::chrono::steady_clock::now();
      if (std::chrono::duration<double>(now - last_progress).count() >= kProgressSeconds) {
        say_progress(console, dir, runs);
        last_progress = now;
      }
    }
    say_progress(console, dir, runs);
    say_summary(console, dir, runs);
  } catch (const std::exception& e) {
    // Writing study.yaml or summary.csv failed (a full disk): the runs keep their checkpoints.
    std::fprintf(console, "mnrl train: the study cannot go on: %s; stopping its seeds\n", e.what());
    stop_and_wait(runs);
    return core::kExitFailure;
  }
  if (signals.first() != 0) {
    std::fprintf(console, "stopped; resume the study with: mnrl train --resume %s\n",
                 dir.c_str());
    return 128 + signals.first();
  }
  for (const SeedRun& run : runs) {
    if (run.status == "failed") return core::kExitFailure;
  }
  std::fprintf(console, "study directory: %s\n", dir.c_str());
  return core::kExitOk;
}

}  // namespace

std::optional<std::vector<std::int64_t>> parse_seeds(const std::string& text) {
  std::vector<std::int64_t> seeds;
  std::set<std::int64_t> seen;
  std::stringstream parts(text);
  for (std::string part; std::getline(parts, part, ',');) {
    const std::size_t dash = part.find('-');
    std::int64_t first = 0, last = 0;
    try {
      std::size_t used = 0;
      first = std::stoll(part.substr(0, dash), &used);
      if (used != (dash == std::string::npos ? part.size() : dash)) return std::nullopt;
      last = first;
      if (dash != std::string::npos) {
        const std::string end = part.substr(dash + 1);
        last = std::stoll(end, &used);
        if (used != end.size()) return std::nullopt;
      }
    } catch (const std::exception&) {
      return std::nullopt;
    }
    if (first < 0 || last < first || last - first >= 10000) return std::nullopt;
    for (std::int64_t seed = first; seed <= last; ++seed) {
      if (!seen.insert(seed).second) return std::nullopt;
      seeds.push_back(seed);
    }
  }
  if (seeds.empty()) return std::nullopt;
  return seeds;
}

int default_jobs(int threads_per_run) {
  cpu_set_t allowed;
  const int cores = ::sched_getaffinity(0, sizeof allowed, &allowed) == 0
                        ? CPU_COUNT(&allowed)
                        : static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, cores / std::max(1, threads_per_run));
}

std::optional<std::string> why_no_study_here() {
  if (!distributed::launched_by_mpi()) return std::nullopt;
  return "a study of seeds (--seeds, or --resume of a study) starts its own processes, one per "
         "seed: run it without mpirun or srun";
}

RunStart how_run_goes_on(const fs::path& run_dir) {
  std::error_code error;
  if (!fs::exists(run_dir, error) || fs::is_empty(run_dir, error)) return RunStart::kFresh;
  if (core::run_directory_in_use(run_dir)) return RunStart::kBusy;
  if (training_complete(run_dir)) return RunStart::kDone;
  if (!list_checkpoints(run_dir).empty()) return RunStart::kResume;
  // Begun but stopped before its first checkpoint: kept for inspection, started anew.
  fs::path aside = run_dir.string() + ".incomplete";
  for (int n = 2; fs::exists(aside, error); ++n) {
    aside = run_dir.string() + ".incomplete-" + std::to_string(n);
  }
  fs::rename(run_dir, aside);
  return RunStart::kFresh;
}

std::optional<double> final_mean_return(const fs::path& run_dir) {
  try {
    const YAML::Node summary = YAML::LoadFile((run_dir / "summary.yaml").string());
    if (summary["interrupted"].as<bool>()) return std::nullopt;
    return summary["final_evaluation"]["mean_return"].as<double>();
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::vector<std::pair<std::int64_t, fs::path>> study_runs(const fs::path& study_dir) {
  SeedStudy study;
  std::vector<std::pair<std::int64_t, fs::path>> started;
  for (const SeedRun& run : read_study(study_dir, study)) {
    const fs::path run_dir = run_dir_of(study_dir, run.seed);
    std::error_code error;
    if (fs::exists(run_dir / "metrics.csv", error)) started.emplace_back(run.seed, run_dir);
  }
  return started;
}

bool is_seed_study(const fs::path& dir) {
  std::error_code error;
  return fs::is_regular_file(dir / kStudyFile, error);
}

int run_seed_study(const SeedStudy& study, const fs::path& study_dir, std::FILE* console) {
  core::write_file_atomically(study_dir / kConfigFile, study.resolved_config);
  std::vector<SeedRun> runs;
  for (const std::int64_t seed : study.seeds) runs.push_back(SeedRun{seed});
  return drive(study, study_dir, runs, console);
}

int resume_seed_study(const fs::path& study_dir, const std::string& program, int jobs,
                      std::FILE* console) {
  SeedStudy study;
  std::vector<SeedRun> runs = read_study(study_dir, study);
  study.program = program;
  if (jobs > 0) study.jobs = jobs;
  return drive(study, study_dir, runs, console);
}

}  // namespace mnrl::experiments
