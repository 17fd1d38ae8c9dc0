#include "experiments/studies/seed_study.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "core/files.h"
#include "core/run_directory.h"
#include "core/stop_signal.h"
#include "core/yaml_writer.h"

extern char** environ;

namespace mnrl::experiments {
namespace fs = std::filesystem;
namespace {

constexpr const char* kStudyFile = "study.yaml";
constexpr double kProgressSeconds = 10.0;  // between progress lines

// A seed's run within the study.
struct SeedRun {
  std::int64_t seed = 0;
  std::string status = "pending";  // pending | running | done | stopped | failed
  int exit_status = 0;             // the child's, once it ended
  pid_t pid = 0;                   // while running
};

fs::path run_dir_of(const fs::path& study_dir, std::int64_t seed) {
  return study_dir / ("seed_" + std::to_string(seed));
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

std::vector<SeedRun> read_study(const fs::path& dir, SeedStudy& study) {
  const fs::path path = dir / kStudyFile;
  try {
    const YAML::Node root = YAML::LoadFile(path.string());
    study.config = root["config"].as<std::string>();
    study.jobs = root["jobs"].as<int>();
    for (const auto& o : root["overrides"]) study.overrides.push_back(o.as<std::string>());
    for (const auto& p : root["plugins"]) study.plugins.push_back(p.as<std::string>());
    std::vector<SeedRun> runs;
    for (const auto& s : root["seeds"]) {
      SeedRun run;
      run.seed = s["seed"].as<std::int64_t>();
      run.status = s["status"].as<std::string>();
      run.exit_status = s["exit_status"].as<int>();
      study.seeds.push_back(run.seed);
      runs.push_back(run);
    }
    if (runs.empty()) throw std::runtime_error("it lists no seeds");
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
    args.push_back(study.config);
    for (const std::string& o : study.overrides) args.insert(args.end(), {"--set", o});
    args.insert(args.end(), {"--seed", std::to_string(seed), "--run-dir",
                             run_dir_of(study_dir, seed).string()});
  }
  for (const std::string& p : study.plugins) args.insert(args.end(), {"--plugin", p});
  args.insert(args.end(), {"--progress", "lines"});
  return args;
}

// Starts `args` in a process group of its own (so a terminal's Ctrl-C reaches the study
// alone), its output appended to `log`. Throws std::runtime_error where it cannot.
pid_t spawn_child(const std::vector<std::string>& args, const fs::path& log) {
  posix_spawn_file_actions_t files;
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&files, STDOUT_FILENO, STDERR_FILENO);
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setpgroup(&attributes, 0);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (const int signal : core::kStopSignals) sigaddset(&defaults, signal);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, argv[0], &files, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    throw std::runtime_error("cannot start '" + args[0] + "': " + std::strerror(error));
  }
  return pid;
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

// The final evaluation's mean return of a finished run (its summary.yaml).
std::optional<double> final_return(const fs::path& run_dir) {
  try {
    const YAML::Node summary = YAML::LoadFile((run_dir / "summary.yaml").string());
    if (summary["interrupted"].as<bool>()) return std::nullopt;
    return summary["final_evaluation"]["mean_return"].as<double>();
  } catch (const std::exception&) {
    return std::nullopt;
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
  std::fprintf(console, "seeds: %d done, %d running%s%s%s, %d waiting\n", counts["done"],
               counts["running"], running.empty() ? "" : " (", running.c_str(),
               running.empty() ? "" : ")", counts["pending"] + counts["stopped"]);
  std::fflush(console);
}

// Each seed's final return, their mean and spread; and summary.csv beside study.yaml.
void say_summary(std::FILE* console, const fs::path& dir, const std::vector<SeedRun>& runs) {
  std::ostringstream csv;
  csv << "seed,status,final_mean_return\n";
  std::vector<double> returns;
  for (const SeedRun& run : runs) {
    const std::optional<double> r =
        run.status == "done" ? final_return(run_dir_of(dir, run.seed)) : std::nullopt;
    csv << run.seed << ',' << run.status << ',';
    if (r) {
      csv << *r;
      returns.push_back(*r);
      std::fprintf(console, "seed %lld: final mean return %.2f\n",
                   static_cast<long long>(run.seed), *r);
    } else {
      std::fprintf(console, "seed %lld: %s (see %s)\n", static_cast<long long>(run.seed),
                   run.status.c_str(), (dir / ("seed_" + std::to_string(run.seed) + ".log")).c_str());
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

// Runs the seeds of `runs` that are not done, `study.jobs` at a time, until all ended or a stop
// was asked for and the running ones ended.
int drive(const SeedStudy& study, const fs::path& dir, std::vector<SeedRun>& runs,
          std::FILE* console) {
  core::install_stop_handlers();
  std::set<std::int64_t> resumable;  // stopped or failed seeds with a run directory
  for (SeedRun& run : runs) {
    if (run.status == "done") continue;
    const fs::path run_dir = run_dir_of(dir, run.seed);
    std::error_code error;
    if (fs::exists(run_dir, error) && !fs::is_empty(run_dir, error)) resumable.insert(run.seed);
    run.status = "pending";
  }
  write_study(dir, study, runs);
  bool forwarded = false;
  auto last_progress = std::chrono::steady_clock::now();
  for (;;) {
    const bool stopping = core::stop_requested();
    int running = 0;
    for (const SeedRun& run : runs) running += run.status == "running" ? 1 : 0;
    if (stopping && !forwarded) {
      for (const SeedRun& run : runs) {
        if (run.status == "running") ::kill(run.pid, core::stop_signal());
      }
      forwarded = true;
    }
    for (SeedRun& run : runs) {
      if (stopping || running >= study.jobs || run.status != "pending") continue;
      const fs::path log = dir / ("seed_" + std::to_string(run.seed) + ".log");
      run.pid = spawn_child(child_arguments(study, dir, run.seed, resumable.count(run.seed) > 0),
                            log);
      run.status = "running";
      ++running;
      write_study(dir, study, runs);
    }
    if (running == 0) break;
    int status = 0;
    const pid_t ended = ::waitpid(-1, &status, WNOHANG);
    if (ended > 0) {
      for (SeedRun& run : runs) {
        if (run.pid != ended || run.status != "running") continue;
        run.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        run.status = run.exit_status == 0                           ? "done"
                     : run.exit_status > 128 && core::stop_requested() ? "stopped"
                                                                       : "failed";
        run.pid = 0;
        write_study(dir, study, runs);
      }
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
  if (core::stop_requested()) {
    std::fprintf(console, "stopped; resume the study with: mnrl train --resume %s\n",
                 dir.c_str());
    return 128 + core::stop_signal();
  }
  for (const SeedRun& run : runs) {
    if (run.status == "failed") return run.exit_status != 0 ? run.exit_status : 1;
  }
  std::fprintf(console, "study directory: %s\n", dir.c_str());
  return 0;
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
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, cores / std::max(1, threads_per_run));
}

bool is_seed_study(const fs::path& dir) {
  std::error_code error;
  return fs::is_regular_file(dir / kStudyFile, error);
}

int run_seed_study(const SeedStudy& study, const fs::path& study_dir, std::FILE* console) {
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
