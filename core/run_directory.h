#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace mnrl::core {

// The run directory cannot be used (taken, not creatable): a user error, reported before
// anything is written.
class RunDirectoryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Creates the directory a run writes to. With `requested` empty: runs/<name>-<YYYYmmdd-HHMMSS>
// under the working directory (suffixed -2, -3, ... if taken). A requested directory may
// exist only if it is empty, so a run never mixes its files with another's.
// Throws RunDirectoryError naming the path on failure.
std::filesystem::path create_run_directory(const std::string& requested, const std::string& name);

// One process per run directory: an exclusive lock (flock) on RUN_DIR/.lock, which holds the
// holder's PID. The kernel releases it when the process ends in any way (a crash, kill -9),
// so a stale lock never blocks a resume.
class RunDirectoryLock {
 public:
  // Throws RunDirectoryError naming the PID of the process that holds the lock.
  explicit RunDirectoryLock(const std::filesystem::path& run_dir);
  ~RunDirectoryLock();
  RunDirectoryLock(const RunDirectoryLock&) = delete;
  RunDirectoryLock& operator=(const RunDirectoryLock&) = delete;

 private:
  int fd_ = -1;
};

// Whether a process holds the run directory's lock now (it trains there). Opens RUN_DIR/.lock
// for writing, as the lock does (an NFS client emulates flock with fcntl locks, which need it);
// a directory without a .lock is not in use. Any error other than the lock being held counts as
// in use: the caller must not touch the directory.
bool run_directory_in_use(const std::filesystem::path& run_dir);

// The current time through strftime(`pattern`), in UTC or local time.
std::string format_current_time(const char* pattern, bool utc);

}  // namespace mnrl::core
