#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace mnrl::envs {

// A plugin could not be loaded. The message names the path as given and the cause:
// "cannot load plugin 'build/libgrid.so': no such file".
class PluginError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct LoadedPlugin {
  std::string path;                  // as given
  std::vector<std::string> env_ids;  // what it registered, sorted
  std::uint32_t crc32c = 0;          // of the bytes loaded
};

// Loads the env plugin at `path` (see envs/plugin.h) and registers its envs in
// Registry::global(), all or none. The path is taken as given: a name without a slash means
// the file in the working directory, never a search of the library path. Checks, each with its
// own message: the file exists and is a shared library for this machine's architecture, its
// symbols resolve, it exports mnrl_env_plugin_entry, its SDK version and C++ ABI match, its
// registration does not throw, registers at least one env and no id that is already taken.
// Loading the same file again registers nothing and returns what the first load registered.
// The file is read once, and exactly those bytes are loaded (from a sealed private copy) and
// checksummed: replacing the file meanwhile cannot make the CRC-32C name other code than what
// runs. A plugin's own RUNPATH cannot use $ORIGIN (its copy has no directory of its own).
// A loaded plugin stays loaded until the process ends (its code backs the envs it makes).
// Not thread-safe, like the registry.
LoadedPlugin load_plugin(const std::string& path);

// The CRC-32C of the bytes load_plugin(path) loaded, or nullopt if it has not loaded `path`.
std::optional<std::uint32_t> loaded_plugin_crc32c(const std::string& path);

}  // namespace mnrl::envs
