#pragma once

// Files that users name (configs, checkpoints, plugins, outputs) are read and written so that
// nothing blocks or grows without bound, and nothing but a regular file is ever replaced:
// - a FIFO, a device, a directory or a socket given as an input is refused at once (opened
//   without blocking, then checked), never waited on or read without end;
// - an input is read up to a stated size and refused beyond it;
// - an output replaces only a regular file (or creates a new one): `mnrl plot -o /dev/null`
//   must not turn a device node into a file.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace mnrl::core {

// A file cannot be used as given: not a regular file, too large, unreadable or unwritable.
// The message names the path and the reason (with the system's words for an errno).
class FileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The whole of the regular file at `path` (symlinks followed), at most `max_bytes` long.
// `what` names the file in messages ("config file"). Throws FileError.
std::string read_regular_file(const std::filesystem::path& path, std::uint64_t max_bytes,
                              const std::string& what);

// Throws FileError unless `path` is a regular file (symlinks followed) that can be opened for
// reading: for files handed to a library that would open them itself (dlopen).
void check_regular_file(const std::filesystem::path& path, const std::string& what);

// Throws FileError if something other than a regular file is at `path` (nothing there is fine).
// A symlink counts as something else: renaming over it would replace the link, not its target.
void check_replaceable(const std::filesystem::path& path);

// A file written in pieces that appears at `path` whole or not at all: the pieces go to
// `path + ".tmp"` (opened without following a symlink or waiting on a FIFO there, and only if
// it is a regular file), which commit() flushes to disk (fsync) and renames over `path`. Only
// a regular file at `path` is ever replaced (check_replaceable, at opening and again at the
// rename). Without a successful commit(), the destructor deletes the temporary file. Every
// failure throws FileError naming the path and the cause, and deletes the temporary file.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(const std::filesystem::path& path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(const char* data, std::size_t size);
  void commit();

 private:
  // Closes and deletes the temporary file, if still open.
  void discard();
  // discard(), then the FileError for `error_number`.
  FileError failure(int error_number);

  std::filesystem::path path_;
  std::filesystem::path temporary_;
  int fd_ = -1;  // -1 once committed or discarded
};

// Writes `content` to `path` at once through an AtomicFileWriter: readers see the old file or
// the whole new one, never a partial one, even after a crash.
void write_file_atomically(const std::filesystem::path& path, const std::string& content);

// Makes the entries of `directory` (renames into it) durable; best effort.
void sync_directory(const std::filesystem::path& directory);

// A file that only grows, written straight through to the kernel (no user-space buffer): a
// failed write (a full disk, a file size limit) is reported by the append() that hit it.
class AppendOnlyFile {
 public:
  // Opens `path` to append; `truncate` empties it first. Throws FileError.
  AppendOnlyFile(const std::filesystem::path& path, bool truncate);
  ~AppendOnlyFile();
  AppendOnlyFile(const AppendOnlyFile&) = delete;
  AppendOnlyFile& operator=(const AppendOnlyFile&) = delete;

  // Writes all of `bytes`. Throws FileError naming the file and the errno.
  void append(const std::string& bytes);
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace mnrl::core
