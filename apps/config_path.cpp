#include "apps/config_path.h"

#include <filesystem>
#include <vector>

namespace mnrl::apps {
namespace fs = std::filesystem;

std::string find_config(const std::string& given) {
  std::error_code error;
  if (given.empty() || fs::exists(given, error) || given.find('/') != std::string::npos) {
    return given;
  }
  const fs::path program = fs::read_symlink("/proc/self/exe", error);
  std::vector<fs::path> directories;
  if (!error) directories.push_back(program.parent_path().parent_path() / "share/mnrl/configs");
  directories.push_back(MNRL_SOURCE_CONFIG_DIR);
  const bool has_extension = fs::path(given).extension() == ".yaml";
  for (const auto& directory : directories) {
    const fs::path candidate = directory / (has_extension ? given : given + ".yaml");
    if (fs::is_regular_file(candidate, error)) return candidate.string();
  }
  return given;
}

}  // namespace mnrl::apps
