#include "core/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <utility>

namespace mnrl::core {
namespace fs = std::filesystem;
namespace {

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

std::string errno_text(int error_number) {
  return std::generic_category().message(error_number);
}

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

// Closes a descriptor at the end of a scope.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

// Opens `path` for reading without blocking on a FIFO, and checks that it is a regular file.
Descriptor open_regular(const fs::path& path, const std::string& what, struct stat& status) {
  Descriptor file{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (file.fd < 0) {
    throw FileError("cannot read " + what + " " + quoted(path) + ": " + errno_text(errno));
  }
  if (::fstat(file.fd, &status) != 0) {
    throw FileError("cannot read " + what + " " + quoted(path) + ": " + errno_text(errno));
  }
  if (!S_ISREG(status.st_mode)) {
    throw FileError(what + " " + quoted(path) + " is " + kind_of(status.st_mode) +
                    ", not a regular file");
  }
  return file;
}

// Writes all of `size` bytes; returns 0 or the errno of the write that failed.
int write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t written = ::write(fd, data, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data += written;
    size -= static_cast<std::size_t>(written);
  }
  return 0;
}

}  // namespace

std::string read_regular_file(const fs::path& path, std::uint64_t max_bytes,
                              const std::string& what) {
  struct stat status {};
  const Descriptor file = open_regular(path, what, status);
  const auto too_large = [&] {
    return FileError(what + " " + quoted(path) + " is larger than the " +
                     std::to_string(max_bytes) + " bytes allowed");
  };
  if (static_cast<std::uint64_t>(status.st_size) > max_bytes) throw too_large();
  std::string content;
  char buffer[65536];
  for (;;) {
    const ssize_t count = ::read(file.fd, buffer, sizeof buffer);
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) {
      throw FileError("cannot read " + what + " " + quoted(path) + ": " + errno_text(errno));
    }
    if (count == 0) return content;
    // The file may have grown since fstat.
    if (content.size() + static_cast<std::uint64_t>(count) > max_bytes) throw too_large();
    content.append(buffer, static_cast<std::size_t>(count));
  }
}

void check_regular_file(const fs::path& path, const std::string& what) {
  struct stat status {};
  open_regular(path, what, status);
}

void check_replaceable(const fs::path& path) {
  struct stat status {};
  if (::lstat(path.c_str(), &status) != 0) return;  // nothing there (or not reachable: the
                                                     // write itself will say why)
  if (!S_ISREG(status.st_mode)) {
    throw FileError("will not write " + quoted(path) + ": it is " + kind_of(status.st_mode) +
                    ", and only a regular file is ever replaced");
  }
}

AtomicFileWriter::AtomicFileWriter(const fs::path& path)
    : path_(path), temporary_(path.string() + ".tmp") {
  check_replaceable(path_);
  // O_NOFOLLOW and O_NONBLOCK: a symlink or a FIFO left at the temporary name is refused, not
  // followed or waited on.
  fd_ = ::open(temporary_.c_str(),
               O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd_ < 0 && errno == ELOOP) {
    throw FileError("will not write " + quoted(temporary_) +
                    ": it is a symbolic link, not a regular file");
  }
  if (fd_ < 0) {
    throw FileError("cannot write " + quoted(path_) + ": " + errno_text(errno));
  }
  struct stat status {};
  if (::fstat(fd_, &status) != 0) throw failure(errno);
  if (!S_ISREG(status.st_mode)) {
    ::close(std::exchange(fd_, -1));  // not ours to delete
    throw FileError("will not write " + quoted(temporary_) + ": it is " + kind_of(status.st_mode) +
                    ", not a regular file");
  }
}

AtomicFileWriter::~AtomicFileWriter() { discard(); }

void AtomicFileWriter::write(const char* data, std::size_t size) {
  if (fd_ < 0) throw FileError("cannot write " + quoted(path_) + ": already closed");
  if (const int error_number = write_all(fd_, data, size)) throw failure(error_number);
}

void AtomicFileWriter::commit() {
  if (fd_ < 0) throw FileError("cannot write " + quoted(path_) + ": already closed");
  if (::fsync(fd_) != 0) throw failure(errno);
  // What is at `path` may have changed while the pieces were written.
  try {
    check_replaceable(path_);
  } catch (const FileError&) {
    discard();
    throw;
  }
  const int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0 || ::rename(temporary_.c_str(), path_.c_str()) != 0) {
    const int error_number = errno;
    ::unlink(temporary_.c_str());
    throw FileError("cannot write " + quoted(path_) + ": " + errno_text(error_number));
  }
  sync_directory(path_.parent_path().empty() ? fs::path(".") : path_.parent_path());
}

void AtomicFileWriter::discard() {
  if (fd_ < 0) return;
  ::close(std::exchange(fd_, -1));
  ::unlink(temporary_.c_str());
}

FileError AtomicFileWriter::failure(int error_number) {
  discard();
  return FileError("cannot write " + quoted(path_) + ": " + errno_text(error_number));
}

void write_file_atomically(const fs::path& path, const std::string& content) {
  AtomicFileWriter file(path);
  file.write(content.data(), content.size());
  file.commit();
}

void sync_directory(const fs::path& directory) {
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // best effort: the data itself is already on disk
  ::fsync(fd);
  ::close(fd);
}

AppendOnlyFile::AppendOnlyFile(const fs::path& path, bool truncate) : path_(path) {
  check_replaceable(path);
  fd_ = ::open(path.c_str(),
               O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC | (truncate ? O_TRUNC : 0),
               0644);
  if (fd_ < 0) throw FileError("cannot write " + quoted(path) + ": " + errno_text(errno));
}

AppendOnlyFile::~AppendOnlyFile() {
  if (fd_ >= 0) ::close(fd_);
}

void AppendOnlyFile::append(const std::string& bytes) {
  if (const int error_number = write_all(fd_, bytes.data(), bytes.size())) {
    throw FileError("writing " + quoted(path_) + " failed: " + errno_text(error_number));
  }
}

}  // namespace mnrl::core
