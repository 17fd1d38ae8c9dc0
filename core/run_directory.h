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

// Writes `content` to `path` through a temporary file in the same directory, flushed to disk
// (fsync) and then renamed over `path`: readers see the old file or the whole new one, never a
// partial one, even after a crash. Throws std::runtime_error naming the path and the cause.
void write_file_atomically(const std::filesystem::path& path, const std::string& content);

// Makes the entries of `directory` (renames into it) durable; best effort.
void sync_directory(const std::filesystem::path& directory);

// The current time through strftime(`pattern`), in UTC or local time.
std::string format_current_time(const char* pattern, bool utc);

}  // namespace mnrl::core
