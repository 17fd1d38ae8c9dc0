#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mnrl::experiments {

// A tuning study's trials as an append-only journal (STUDY/journal.yaml, one YAML flow map per
// line), shared by every `mnrl tune` process working on the study, on one host or several on a
// shared file system. A process holds the journal's lock (a POSIX record lock on
// STUDY/journal.lock, which NFS honours) while it reads the journal and appends to it, so a
// trial number is taken once and the sampler sees every trial begun before.
//
// Events: created (number, worker, seed, parameters), report (an intermediate evaluation: step,
// value), ended (complete with its objective, pruned, stopped, or failed), resumed (a stopped
// trial taken up again by a worker).
struct TrialRecord {
  int number = 0;
  std::string worker;  // host:pid of the process that runs it
  std::int64_t seed = 0;
  std::map<std::string, std::string> parameters;  // key -> the text --set took
  std::map<std::string, double> numbers;          // key -> the sampled number (index: categorical)
  std::vector<std::pair<std::int64_t, double>> reports;  // (step, value), in order
  std::string state = "running";  // running | complete | pruned | stopped | failed
  std::optional<double> value;    // complete: the objective
  std::int64_t steps = 0;         // the steps it trained, once ended
};

class TrialJournal {
 public:
  explicit TrialJournal(const std::filesystem::path& study_dir);
  ~TrialJournal();
  TrialJournal(const TrialJournal&) = delete;
  TrialJournal& operator=(const TrialJournal&) = delete;

  // While one lives, this process alone reads and appends.
  class Lock {
   public:
    explicit Lock(const TrialJournal& journal);
    ~Lock();
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;

   private:
    int fd_;
  };

  // Every trial, by number. Throws std::runtime_error naming the line that cannot be read (a
  // last line cut short by a crash mid-write is skipped).
  std::vector<TrialRecord> read() const;

  void created(const TrialRecord& trial) const;
  // A stopped or orphaned trial goes on under `worker`; `fresh`: from the start (its earlier
  // reports are dropped), else from its checkpoint.
  void resumed(int number, const std::string& worker, bool fresh) const;
  void report(int number, std::int64_t step, double value) const;
  void ended(int number, const std::string& state, std::optional<double> value,
             std::int64_t steps) const;

 private:
  void append(const std::string& line) const;

  std::filesystem::path path_;
  int lock_fd_ = -1;
};

}  // namespace mnrl::experiments
