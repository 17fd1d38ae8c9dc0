#include "core/run_directory.h"

#include <ctime>
#include <fstream>
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

void write_file_atomically(const fs::path& path, const std::string& content) {
  const fs::path temporary = path.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << content;
    out.flush();
    if (!out) {
      std::error_code ignored;
      fs::remove(temporary, ignored);
      throw std::runtime_error("cannot write '" + path.string() + "'");
    }
  }
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error) {
    fs::remove(temporary, error);
    throw std::runtime_error("cannot write '" + path.string() + "': " + error.message());
  }
}

}  // namespace mnrl::core
