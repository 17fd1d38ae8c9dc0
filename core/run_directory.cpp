#include "core/run_directory.h"

#include <cstdio>
#include <ctime>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace mnrl::core {
namespace fs = std::filesystem;

namespace {

std::string timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y%m%d-%H%M%S", &local);
  return buffer;
}

}  // namespace

fs::path create_run_directory(const std::string& requested, const std::string& name) {
  std::error_code error;
  if (!requested.empty()) {
    const fs::path path(requested);
    if (fs::exists(path, error) && !(fs::is_directory(path) && fs::is_empty(path, error))) {
      throw std::runtime_error("run directory '" + requested +
                               "' already exists and is not empty; choose another --run-dir");
    }
    fs::create_directories(path, error);
    if (error) {
      throw std::runtime_error("cannot create run directory '" + requested + "': " +
                               error.message());
    }
    return path;
  }
  const fs::path base = fs::path("runs") / (name + "-" + timestamp());
  fs::create_directories(base.parent_path(), error);
  for (int attempt = 1;; ++attempt) {
    const fs::path path = attempt == 1 ? base : fs::path(base.string() + "-" + std::to_string(attempt));
    // create_directory reports false when the path exists: that name is taken, try the next.
    if (fs::create_directory(path, error)) return path;
    if (error) {
      throw std::runtime_error("cannot create run directory '" + path.string() + "': " +
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
