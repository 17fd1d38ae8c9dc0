#include "experiments/studies/tune_study.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <thread>

#include "core/exit_codes.h"
#include "core/files.h"
#include "core/host_name.h"
#include "core/text.h"
#include "core/yaml_writer.h"
#include "experiments/config/experiment_options.h"
#include "experiments/metrics/metrics.h"
#include "experiments/studies/child_runs.h"
#include "experiments/studies/search_space.h"
#include "experiments/studies/seed_study.h"
#include "experiments/studies/tpe_sampler.h"
#include "experiments/studies/trial_journal.h"

namespace mnrl::experiments {
namespace fs = std::filesystem;
namespace {

constexpr const char* kTuneFile = "tune.yaml";
constexpr const char* kTuneConfig = "config.yaml";
constexpr const char* kSpaceFile = "space.yaml";
constexpr const char* kEvaluationMetric = "eval/mean_return";
constexpr double kTuneProgressSeconds = 30.0;

std::string tune_settings(const TuneStudy& study) {
  core::YamlWriter out;
  out.key("config").text(study.config).key("trials").integer(study.trials);
  out.key("seed").integer(static_cast<std::int64_t>(study.seed)).key("sampler").text(study.sampler);
  out.key("pruner").begin_map().key("kind").text(study.pruner.kind);
  out.key("startup_trials").integer(study.pruner.startup_trials);
  out.key("warmup_steps").integer(study.pruner.warmup_steps);
  out.key("reduction_factor").integer(study.pruner.reduction_factor);
  out.key("min_steps").integer(study.pruner.min_steps).end_map();
  return out.str();
}

// What must agree for a process to join a study: the config, the space and what decides the
// trials (the config file's own path may differ between hosts).
std::string without_config_path(const std::string& settings) {
  return settings.substr(settings.find('\n') + 1);
}

std::string file_text(const fs::path& path) {
  return core::read_regular_file(path, 1 << 24, path.filename().string());
}

// Creates the study in `dir`, or checks that the one there is this one. Called under the
// journal's lock, so one process creates and the others join.
void create_or_join(const TuneStudy& study, const fs::path& dir) {
  std::error_code error;
  if (!fs::exists(dir / kTuneFile, error)) {
    core::write_file_atomically(dir / kTuneConfig, study.resolved_config);
    core::write_file_atomically(dir / kSpaceFile, study.space);
    core::write_file_atomically(dir / kTuneFile, tune_settings(study));  // last: the study is ready
    return;
  }
  const auto differs = [&](const char* file, const std::string& ours) {
    return file == std::string(kTuneFile)
               ? without_config_path(file_text(dir / file)) != without_config_path(ours)
               : file_text(dir / file) != ours;
  };
  for (const auto& [file, ours, what] :
       {std::tuple<const char*, std::string, const char*>{kTuneConfig, study.resolved_config,
                                                          "config (with its --set)"},
        {kSpaceFile, study.space, "search space"},
        {kTuneFile, tune_settings(study), "settings (--trials, --seed, --sampler, the pruner)"}}) {
    if (differs(file, ours)) {
      throw StudyMismatch("the study in " + dir.string() + " was made with another " + what +
                          " (its " + file + "): give the same, or another --study directory");
    }
  }
}

// Trial N's parameters, given the trials before it: drawn from a generator of its own (study
// seed, N), so a trial's draw does not depend on which process took it.
TrialRecord new_trial(const TuneStudy& study, const std::vector<Parameter>& space,
                      const std::vector<TrialRecord>& before, const std::string& worker) {
  const int number = static_cast<int>(before.size());
  std::seed_seq seeds{static_cast<std::uint64_t>(study.seed), static_cast<std::uint64_t>(number)};
  std::mt19937_64 random(seeds);
  std::vector<ParameterValue> values;
  if (study.sampler == "tpe") {
    values = tpe_draw(space, before, TpeOptions{}, random);
  } else {
    for (const Parameter& p : space) values.push_back(draw(p, random));
  }
  TrialRecord trial;
  trial.number = number;
  trial.worker = worker;
  trial.seed = static_cast<std::int64_t>(study.seed) + number;
  for (std::size_t i = 0; i < space.size(); ++i) {
    trial.parameters[space[i].key] = values[i].text;
    trial.numbers[space[i].key] = values[i].number;
  }
  return trial;
}

fs::path trial_dir(const fs::path& study_dir, int number) {
  return study_dir / "trials" / ("trial_" + std::to_string(number));
}

std::vector<std::string> trial_arguments(const TuneStudy& study, const fs::path& dir,
                                         const TrialRecord& trial, bool resume) {
  std::vector<std::string> args{study.program, "train"};
  if (resume) {
    args.insert(args.end(), {"--resume", trial_dir(dir, trial.number).string()});
  } else {
    args.push_back((dir / kTuneConfig).string());
    for (const auto& [key, text] : trial.parameters) args.insert(args.end(), {"--set", key + "=" + text});
    args.insert(args.end(), {"--seed", std::to_string(trial.seed), "--run-dir",
                             trial_dir(dir, trial.number).string()});
  }
  for (const std::string& p : study.plugins) args.insert(args.end(), {"--plugin", p});
  args.insert(args.end(), {"--progress", "lines"});
  return args;
}

// A trial this process runs.
struct RunningTrial {
  int number = 0;
  pid_t pid = 0;
  std::streamoff read_to = 0;   // how far its metrics.csv was read
  ino_t file = 0;               // which metrics.csv (a resume rewrites it, cut to its checkpoint)
  bool pruning = false;         // the pruner stopped it
  std::int64_t last_step = -1;  // of its latest report in the journal
};

// The evaluations `trial` logged past its latest report. A metrics.csv replaced or cut shorter
// (a resumed run rewrites it up to its checkpoint) is read again from the start.
std::vector<std::pair<std::int64_t, double>> new_evaluations(RunningTrial& trial,
                                                             const fs::path& run_dir) {
  std::vector<std::pair<std::int64_t, double>> found;
  const fs::path path = run_dir / "metrics.csv";
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) return found;
  if (status.st_ino != trial.file || status.st_size < trial.read_to) {
    trial.file = status.st_ino;
    trial.read_to = 0;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return found;
  in.seekg(trial.read_to);
  std::string line;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // a row still being written
    trial.read_to = in.tellg();
    if (line.rfind("step,", 0) == 0) continue;  // the header
    try {
      const std::optional<MetricsRow> row = parse_metrics_row(line, path.string());
      if (row && row->name == kEvaluationMetric && std::isfinite(row->value) &&
          row->step > trial.last_step && (found.empty() || row->step > found.back().first)) {
        found.emplace_back(row->step, row->value);
      }
    } catch (const std::runtime_error&) {
      // A damaged row tells the pruner nothing; the run itself reports its own errors.
    }
  }
  return found;
}

// The steps a trial that ended trained: its summary's (written however it stopped), else those
// of its latest evaluation.
std::int64_t trained_steps(const fs::path& run_dir, std::int64_t last_reported) {
  try {
    return YAML::LoadFile((run_dir / "summary.yaml").string())["steps"].as<std::int64_t>();
  } catch (const std::exception&) {
    return last_reported;
  }
}

// Each worker's heartbeat: STUDY/workers/HOST:PID, rewritten while it runs. A worker on
// another host whose file is older than the timeout (by the file system's clock: compared with
// this worker's own file) is gone.
constexpr double kBeatSeconds = 2.0;  // --worker-timeout is at least 10 s: 5 beats

class Heartbeat {
 public:
  Heartbeat(const fs::path& dir, const std::string& worker) : path_(dir / "workers" / worker) {
    fs::create_directories(path_.parent_path());
    write();
  }
  ~Heartbeat() {
    std::error_code ignored;
    fs::remove(path_, ignored);
  }
  void beat() {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - last_).count() >=
        kBeatSeconds) {
      write();
    }
  }

 private:
  void write() {
    core::write_file_atomically(path_, std::to_string(::getpid()) + "\n");
    last_ = std::chrono::steady_clock::now();
  }
  fs::path path_;
  std::chrono::steady_clock::time_point last_;
};

// Whether the process that runs a trial ended without saying how the trial ended (kill -9, a
// lost node): on this host, its PID is gone; elsewhere, its heartbeat stopped.
bool worker_gone(const std::string& worker, const std::string& me, const fs::path& dir,
                 double timeout_seconds) {
  std::error_code theirs_error, mine_error;
  const auto theirs = fs::last_write_time(dir / "workers" / worker, theirs_error);
  const auto mine = fs::last_write_time(dir / "workers" / me, mine_error);
  const bool silent =
      theirs_error ||
      (!mine_error && std::chrono::duration<double>(mine - theirs).count() > timeout_seconds);
  const std::size_t colon = worker.rfind(':');
  if (colon == std::string::npos || worker.substr(0, colon) != me.substr(0, me.rfind(':'))) {
    return silent;  // another host: its heartbeat alone tells
  }
  const long pid = std::strtol(worker.c_str() + colon + 1, nullptr, 10);
  if (pid == ::getpid()) return true;  // an earlier process with this PID (worker != me)
  return (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) || silent;
}

// What this process takes up next: a trial to resume (stopped, or its process gone), else a new
// one while the study has fewer than its trials.
struct Work {
  TrialRecord trial;
  bool resume = false;
  const char* how = "started";
};

// Sets `elsewhere` to the trials other processes still run (this one waits for them, to take
// them over should their process die).
std::optional<Work> take_work(const TuneStudy& study, const std::vector<Parameter>& space,
                              const fs::path& dir, const TrialJournal& journal,
                              const std::string& worker, std::FILE* console, int& elsewhere) {
  std::vector<TrialRecord> trials = journal.read();
  elsewhere = 0;
  for (const TrialRecord& trial : trials) {
    elsewhere += trial.state == "running" && trial.worker != worker ? 1 : 0;
  }
  for (const TrialRecord& trial : trials) {
    const bool orphaned = trial.state == "running" && trial.worker != worker &&
                          worker_gone(trial.worker, worker, dir, study.worker_timeout_seconds);
    if (trial.state != "stopped" && !orphaned) continue;
    const fs::path run_dir = trial_dir(dir, trial.number);
    const RunStart start = how_run_goes_on(run_dir);
    if (start == RunStart::kBusy) continue;  // its run still ends (it stops with its process)
    if (start == RunStart::kDone) {
      // Its run finished, its process did not live to say so.
      std::optional<double> value = final_mean_return(run_dir);
      if (value && !std::isfinite(*value)) value.reset();
      journal.ended(trial.number, value ? "complete" : "failed", value, trained_steps(run_dir, 0));
      continue;
    }
    if (orphaned) {
      std::fprintf(console, "trial %d: its process %s is gone; taking it over\n", trial.number,
                   trial.worker.c_str());
    }
    const bool fresh = start != RunStart::kResume;
    journal.resumed(trial.number, worker, fresh);
    Work work{trial, !fresh, "resumed"};
    if (fresh) work.trial.reports.clear();
    if (!work.resume) work.how = "restarted";
    return work;
  }
  if (static_cast<int>(trials.size()) >= study.trials) return std::nullopt;
  Work work{new_trial(study, space, trials, worker), false, "started"};
  journal.created(work.trial);
  return work;
}

void write_results(const TuneStudy& study, const fs::path& dir,
                   const std::vector<TrialRecord>& trials, std::FILE* console) {
  std::ostringstream csv;
  csv << "trial,state,value,steps,seed,worker";
  std::vector<std::string> keys;
  if (!trials.empty()) {
    for (const auto& entry : trials.front().parameters) keys.push_back(entry.first);
  }
  for (const std::string& key : keys) csv << ',' << core::csv_field(key);
  csv << '\n';
  const TrialRecord* best = nullptr;
  int counts[5] = {};
  for (const TrialRecord& t : trials) {
    csv << t.number << ',' << t.state << ',';
    if (t.value) csv << *t.value;
    csv << ',' << t.steps << ',' << t.seed << ',' << core::csv_field(t.worker);
    for (const std::string& key : keys) csv << ',' << core::csv_field(t.parameters.at(key));
    csv << '\n';
    if (t.value && (!best || *t.value > *best->value)) best = &t;
    const char* states[] = {"complete", "pruned", "stopped", "failed", "running"};
    for (int i = 0; i < 5; ++i) counts[i] += t.state == states[i];
  }
  core::write_file_atomically(dir / "trials.csv", csv.str());
  std::fprintf(console, "trials: %d complete, %d pruned, %d stopped, %d failed, %d running\n",
               counts[0], counts[1], counts[2], counts[3], counts[4]);
  if (!best) return;
  std::vector<std::string> overrides;
  for (const auto& [key, text] : best->parameters) overrides.push_back(key + "=" + text);
  overrides.push_back("seed=" + std::to_string(study.seed));
  const ExperimentOptions options = load_experiment((dir / kTuneConfig).string(), overrides);
  std::string header = "# mnrl tune: the best trial of " + dir.string() + ", trial " +
                       std::to_string(best->number) + " (final mean return " +
                       std::to_string(*best->value) + "):";
  for (const std::string& o : overrides) header += " " + o;
  core::write_file_atomically(dir / "best.yaml", header + "\n" + resolved_config_yaml(options));
  std::fprintf(console, "best: trial %d, final mean return %.2f, with", best->number,
               *best->value);
  for (const auto& [key, text] : best->parameters) std::fprintf(console, " %s=%s", key.c_str(), text.c_str());
  std::fprintf(console, "\nits config: %s (train it on several seeds: mnrl train %s --seeds 1-5)\n",
               (dir / "best.yaml").c_str(), (dir / "best.yaml").c_str());
}

}  // namespace

int run_tune_study(const TuneStudy& study, const fs::path& dir, std::FILE* console) {
  std::error_code error;
  if (fs::exists(dir, error) && !fs::is_empty(dir, error) && !fs::exists(dir / kTuneFile, error) &&
      !fs::exists(dir / "journal.lock", error)) {
    throw StudyMismatch("'" + dir.string() + "' is neither empty nor a tuning study");
  }
  fs::create_directories(dir);
  // journal.lock first: a process starting at the same moment sees an empty directory or a
  // study being made, never one it would take for someone else's.
  const TrialJournal journal(dir);
  {
    const TrialJournal::Lock lock(journal);
    create_or_join(study, dir);
    fs::create_directories(dir / "trials");
  }
  const std::vector<Parameter> space = read_search_space((dir / kSpaceFile).string());
  // HOST:PID@START: a process restarted with the same host name and PID (a container) is
  // another worker.
  const std::string worker = core::host_name() + ":" + std::to_string(::getpid()) + "@" +
                             std::to_string(static_cast<long long>(std::time(nullptr)));
  StudyStopSignals signals;
  std::vector<RunningTrial> running;
  Heartbeat heartbeat(dir, worker);
  bool forwarded = false, failed = false, cannot_start = false;
  int elsewhere = 0;  // trials other processes run, as last looked
  bool said_waiting = false;
  auto next_look = std::chrono::steady_clock::now();
  auto last_progress = std::chrono::steady_clock::now();
  for (;;) {
    const bool stopping = signals.first() != 0;
    if (stopping && !forwarded) {
      std::fprintf(console, "stopping: each running trial writes a checkpoint and ends (the next "
                            "mnrl tune on the study resumes them)\n");
      for (const RunningTrial& t : running) stop_child(t.pid, /*insist=*/false);
      forwarded = true;
    }
    if (signals.insisted()) {
      for (const RunningTrial& t : running) stop_child(t.pid, /*insist=*/true);
    }
    const auto now = std::chrono::steady_clock::now();
    while (!stopping && !cannot_start && static_cast<int>(running.size()) < study.jobs &&
           now >= next_look) {
      heartbeat.beat();
      const TrialJournal::Lock lock(journal);
      std::optional<Work> work = take_work(study, space, dir, journal, worker, console, elsewhere);
      if (!work) {
        // Nothing to take now; a trial of a process that dies later may still come free.
        next_look = now + std::chrono::seconds(2);
        if (running.empty() && elsewhere > 0 && !said_waiting) {
          std::fprintf(console,
                       "waiting for the %d trial(s) other processes run (taken over "
                       "should a process die)\n",
                       elsewhere);
          std::fflush(console);
          said_waiting = true;
        }
        break;
      }
      const TrialRecord& trial = work->trial;
      const fs::path log = dir / "trials" / ("trial_" + std::to_string(trial.number) + ".log");
      RunningTrial started;
      started.number = trial.number;
      if (work->resume && !trial.reports.empty()) started.last_step = trial.reports.back().first;
      try {
        started.pid = spawn_child(trial_arguments(study, dir, trial, work->resume), log);
      } catch (const std::runtime_error& e) {
        // This process cannot start trials (its program gone, no processes left): the trial
        // waits, stopped, for another process, and this one takes no more.
        std::fprintf(console, "trial %d: %s; leaving it to another mnrl tune on the study\n",
                     trial.number, e.what());
        journal.ended(trial.number, "stopped", std::nullopt, 0);
        failed = cannot_start = true;
        break;
      }
      std::fprintf(console, "trial %d %s:", trial.number, work->how);
      for (const auto& [key, text] : trial.parameters) std::fprintf(console, " %s=%s", key.c_str(), text.c_str());
      std::fprintf(console, "\n");
      std::fflush(console);
      running.push_back(started);
    }
    if (running.empty() && (stopping || cannot_start || (next_look > now && elsewhere == 0))) {
      break;
    }
    bool changed = false;
    for (auto it = running.begin(); it != running.end();) {
      RunningTrial& t = *it;
      const auto evaluations = new_evaluations(t, trial_dir(dir, t.number));
      if (!evaluations.empty() && !t.pruning && !stopping) {
        const TrialJournal::Lock lock(journal);
        for (const auto& [step, value] : evaluations) journal.report(t.number, step, value);
        const std::int64_t judged_through = t.last_step;
        t.last_step = evaluations.back().first;
        const std::vector<TrialRecord> trials = journal.read();
        if (should_prune(study.pruner, trials[static_cast<std::size_t>(t.number)], trials,
                         judged_through)) {
          std::fprintf(console, "trial %d pruned at step %lld (%.2f)\n", t.number,
                       static_cast<long long>(t.last_step), evaluations.back().second);
          stop_child(t.pid, /*insist=*/false);
          t.pruning = true;
        }
      }
      int status = 0;
      const pid_t ended = ::waitpid(t.pid, &status, WNOHANG);
      if (ended == 0 || (ended < 0 && errno == EINTR)) {
        ++it;
        continue;
      }
      const int exit_status =
          ended < 0 ? 1 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      const fs::path run_dir = trial_dir(dir, t.number);
      std::optional<double> value = exit_status == 0 ? final_mean_return(run_dir) : std::nullopt;
      if (value && !std::isfinite(*value)) value.reset();  // a diverged trial is a failed one
      const bool stopped = signals.first() != 0;           // now: the signal may have come since
      const char* state = value                            ? "complete"
                          : t.pruning && exit_status > 128 ? "pruned"
                          : stopped && exit_status > 128   ? "stopped"
                                                           : "failed";
      if (std::string(state) == "failed") {
        std::fprintf(console, "trial %d failed with exit status %d (see %s.log)\n", t.number,
                     exit_status, run_dir.c_str());
        failed = true;
      } else if (value) {
        std::fprintf(console, "trial %d complete: final mean return %.2f\n", t.number, *value);
      }
      {
        const TrialJournal::Lock lock(journal);
        const TrialRecord now_recorded = journal.read().at(static_cast<std::size_t>(t.number));
        if (now_recorded.worker != worker || now_recorded.state != "running") {
          // Taken over meanwhile (this process was thought gone): the other says how it ends.
          std::fprintf(console, "trial %d: taken over by %s\n", t.number,
                       now_recorded.worker.c_str());
        } else {
          journal.ended(t.number, state, value, trained_steps(run_dir, t.last_step));
        }
      }
      it = running.erase(it);
      changed = true;
    }
    if (changed) continue;
    // Often: a fast trial trains thousands of steps between a pruned evaluation and its stop.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    heartbeat.beat();
    if (std::chrono::duration<double>(now - last_progress).count() >= kTuneProgressSeconds) {
      std::fprintf(console, "trials running here:");
      for (const RunningTrial& t : running) {
        std::fprintf(console, " %d (step %lld)", t.number, static_cast<long long>(t.last_step));
      }
      std::fprintf(console, "\n");
      std::fflush(console);
      last_progress = now;
    }
  }
  {
    // Under the lock: processes that end together (scancel) write trials.csv one at a time.
    const TrialJournal::Lock lock(journal);
    write_results(study, dir, journal.read(), console);
  }
  if (signals.first() != 0) {
    std::fprintf(console, "stopped; go on with: mnrl tune ... --study %s\n", dir.c_str());
    return 128 + signals.first();
  }
  return failed ? core::kExitFailure : core::kExitOk;
}

}  // namespace mnrl::experiments
