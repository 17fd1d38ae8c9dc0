#include "apps/config_path.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "core/text.h"

namespace mnrl::apps {
namespace fs = std::filesystem;
namespace {

constexpr const char* kExtension = ".yaml";

// Where bundled configs are: installed next to the program, then in the source tree.
std::vector<fs::path> bundled_directories() {
  std::error_code error;
  const fs::path program = fs::read_symlink("/proc/self/exe", error);
  std::vector<fs::path> directories;
  if (!error) directories.push_back(program.parent_path().parent_path() / "share/mnrl/configs");
  directories.push_back(MNRL_SOURCE_CONFIG_DIR);
  return directories;
}

// The names of the bundled configs ("cartpole_ppo"), sorted, each once.
std::vector<std::string> bundled_names() {
  std::vector<std::string> names;
  for (const auto& directory : bundled_directories()) {
    std::error_code error;
    for (fs::directory_iterator it(directory, error), end; !error && it != end;
         it.increment(error)) {
      if (it->path().extension() == kExtension) names.push_back(it->path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

// A name, not a path: what find_config looks up among the bundled configs.
bool is_bare_name(const std::string& given) {
  return !given.empty() && given.find('/') == std::string::npos;
}

}  // namespace

std::string find_config(const std::string& given) {
  std::error_code error;
  if (!is_bare_name(given) || fs::exists(given, error)) return given;
  const bool has_extension = fs::path(given).extension() == kExtension;
  for (const auto& directory : bundled_directories()) {
    const fs::path candidate = directory / (has_extension ? given : given + kExtension);
    if (fs::is_regular_file(candidate, error)) return candidate.string();
  }
  return given;
}

std::string unknown_config_message(const std::string& given) {
  std::error_code error;
  if (!is_bare_name(given) || fs::exists(given, error)) return "";
  const std::vector<std::string> names = bundled_names();
  const std::string stem =
      fs::path(given).extension() == kExtension ? fs::path(given).stem().string() : given;
  return "'" + core::elided(given) + "' is neither a file nor a bundled config" +
         core::did_you_mean(stem, names) + (names.empty() ? "" : "; bundled: " + core::join(names));
}

}  // namespace mnrl::apps
