#include "core/run_directory.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <stdexcept>
#include <system_error>

namespace mnrl::core {
namespace fs = std::filesystem;

std::string format_current_time(const char* pattern, bool utc) {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  if (utc) {
    gmtime_r(&now, &parts);
  } else {
    localtime_r(&now, &parts);
  }
  char buffer[64];
  return std::string(buffer, std::strftime(buffer, sizeof buffer, pattern, &parts));
}

fs::path create_run_directory(const std::string& requested, const std::string& name) {
  std::error_code error;
  if (!requested.empty()) {
    const fs::path path(requested);
    // Inside another run, this one's files could be taken for that run's (or deleted with its
    // old checkpoints).
    for (fs::path outer = fs::absolute(path, error).lexically_normal().parent_path();
         !outer.empty(); outer = outer.parent_path()) {
      if (fs::exists(outer / "run_info.yaml", error) && fs::exists(outer / "config.yaml", error)) {
        throw RunDirectoryError("run directory '" + requested + "' is inside the run directory '" +
                                outer.string() + "'; choose another --run-dir");
      }
      if (outer == outer.parent_path()) break;
    }
    if (fs::exists(path, error) && !fs::is_directory(path, error)) {
      throw RunDirectoryError("run directory '" + requested +
                              "' exists and is not a directory; choose another --run-dir");
    }
    if (fs::exists(path, error) && !fs::is_empty(path, error)) {
      throw RunDirectoryError("run directory '" + requested +
                               "' already exists and is not empty; choose another --run-dir");
    }
    fs::create_directories(path, error);
    if (error) {
      throw RunDirectoryError("cannot create run directory '" + requested + "': " +
                               error.message());
    }
    return path;
  }
  const fs::path base = fs::path("runs") / (name + "-" + format_current_time("%Y%m%d-%H%M%S", /*utc=*/false));
  fs::create_directories(base.parent_path(), error);
  if (error) {
    throw RunDirectoryError("cannot create '" + base.parent_path().string() + "' for run " +
                            "directories: " + error.message());
  }
  for (int attempt = 1;; ++attempt) {
    const fs::path path = attempt == 1 ? base : fs::path(base.string() + "-" + std::to_string(attempt));
    // create_directory reports false when the path exists: that name is taken, try the next.
    if (fs::create_directory(path, error)) return path;
    if (error) {
      throw RunDirectoryError("cannot create run directory '" + path.string() + "': " +
                               error.message());
    }
  }
}

RunDirectoryLock::RunDirectoryLock(const fs::path& run_dir) {
  const fs::path path = run_dir / ".lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    throw RunDirectoryError("cannot lock run directory '" + run_dir.string() + "': " +
                            std::generic_category().message(errno));
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error_number = errno;
    char holder[32] = {};
    const ssize_t count = ::pread(fd_, holder, sizeof holder - 1, 0);
    ::close(fd_);
    if (error_number != EWOULDBLOCK) {
      throw RunDirectoryError("cannot lock run directory '" + run_dir.string() + "': " +
                              std::generic_category().message(error_number));
    }
    const std::string pid = count > 0 ? std::string(holder, static_cast<std::size_t>(count)) : "";
    throw RunDirectoryError("run directory '" + run_dir.string() +
                            "' is in use by another mnrl process" +
                            (pid.empty() ? "" : " (PID " + pid + ")") +
                            "; one process at a time may train in a run directory");
  }
  const std::string pid = std::to_string(::getpid());
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
    // The lock holds without the PID; only the message of a refused second process is poorer.
  }
}

RunDirectoryLock::~RunDirectoryLock() { ::close(fd_); }  // releases the lock

bool run_directory_in_use(const fs::path& run_dir) {
  const int fd = ::open((run_dir / ".lock").c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno != ENOENT;
  const bool free = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
  ::close(fd);  // releases it again
  return !free;
}

}  // namespace mnrl::core
