#include "core/run_directory.h"

#include <fcntl.h>
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
    if (fs::exists(path, error) && !(fs::is_directory(path) && fs::is_empty(path, error))) {
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

namespace {

[[noreturn]] void throw_write_error(const fs::path& path, int error_number) {
  throw std::runtime_error("cannot write '" + path.string() + "': " +
                           std::generic_category().message(error_number));
}

}  // namespace

void write_file_atomically(const fs::path& path, const std::string& content) {
  const fs::path temporary = path.string() + ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw_write_error(path, errno);
  const char* data = content.data();
  std::size_t left = content.size();
  int error_number = 0;
  while (left > 0 && error_number == 0) {
    const ssize_t written = ::write(fd, data, left);
    if (written < 0 && errno != EINTR) error_number = errno;
    if (written > 0) {
      data += written;
      left -= static_cast<std::size_t>(written);
    }
  }
  if (error_number == 0 && ::fsync(fd) != 0) error_number = errno;
  if (::close(fd) != 0 && error_number == 0) error_number = errno;
  if (error_number == 0 && ::rename(temporary.c_str(), path.c_str()) != 0) error_number = errno;
  if (error_number != 0) {
    ::unlink(temporary.c_str());
    throw_write_error(path, error_number);
  }
  sync_directory(path.parent_path().empty() ? fs::path(".") : path.parent_path());
}

void sync_directory(const fs::path& directory) {
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // best effort: the data itself is already on disk
  ::fsync(fd);
  ::close(fd);
}

}  // namespace mnrl::core
