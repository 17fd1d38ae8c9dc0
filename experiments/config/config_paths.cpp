#include "experiments/config/config_paths.h"

namespace mnrl::experiments {
namespace fs = std::filesystem;
namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Where the value at `key_path` was written: "file:line:col", "--set key=value", or the file
// name for a key the document does not hold.
std::string location_of(const core::ConfigDocument& document, const std::string& key_path) {
  const std::string located = document.error_at(key_path, "").what();
  return located.substr(0, located.size() - 2);  // error_at() adds ": " and the empty message
}

// `path` made absolute: a relative one from `config_dir`, or from the working directory when a
// --set gave it (the value at `key_path`).
std::string resolved(const std::string& path, const std::string& key_path,
                     const core::ConfigDocument& document, const fs::path& config_dir) {
  if (path.empty() || fs::path(path).is_absolute()) return path;
  const bool from_command_line = location_of(document, key_path).rfind("--set ", 0) == 0;
  const fs::path base = from_command_line ? fs::current_path() : config_dir;
  return (base / path).lexically_normal().string();
}

}  // namespace

bool is_path_kwarg(const std::string& key) {
  return ends_with(key, "_path") || ends_with(key, "_file");
}

void resolve_config_paths(envs::EnvOptions& env, const core::ConfigDocument& document,
                          const fs::path& config_dir) {
  env.plugin = resolved(env.plugin, "env.plugin", document, config_dir);
  for (const std::string& key : env.kwargs.keys()) {
    if (!is_path_kwarg(key) || env.kwargs.is_list(key)) continue;
    const std::string key_path = "env.kwargs." + key;
    const std::string path = env.kwargs.texts(key).front();
    const std::string absolute = resolved(path, key_path, document, config_dir);
    if (absolute != path) env.kwargs.set(key, absolute, location_of(document, key_path));
  }
}

std::vector<std::string> env_data_files(const envs::EnvOptions& env) {
  std::vector<std::string> files;
  for (const std::string& key : env.kwargs.keys()) {
    if (is_path_kwarg(key) && !env.kwargs.is_list(key)) {
      files.push_back(env.kwargs.texts(key).front());
    }
  }
  return files;
}

}  // namespace mnrl::experiments
