#include "envs/plugin_loader.h"

#include <dlfcn.h>

#include <filesystem>
#include <map>
#include <vector>

#include "core/text.h"
#include "envs/plugin.h"
#include "envs/registry.h"
#include "envs/shared_library_file.h"

namespace mnrl::envs {
namespace {

constexpr const char* kEntryPoint = "mnrl_env_plugin_entry";
using EntryPoint = const MnrlEnvPluginInfo* (*)();

std::string version_text(std::uint32_t major, std::uint32_t minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

// dlopen's message made readable: an unresolved symbol is demangled and explained.
std::string explain_dlopen_error(const std::string& error) {
  const std::string marker = "undefined symbol: ";
  const auto at = error.find(marker);
  if (at == std::string::npos) return error;
  const std::string symbol = core::demangle(error.substr(at + marker.size()).c_str());
  // Symbols of mnrl itself change between versions, or with the C++ ABI (std::string's layout
  // is part of every mangled name that takes one).
  if (symbol.rfind("mnrl::", 0) == 0) {
    return "it needs the symbol '" + symbol + "', which this mnrl (" MNRL_VERSION_STRING
           ") does not define: it was built against another version of mnrl or with another "
           "_GLIBCXX_USE_CXX11_ABI; rebuild it against this mnrl";
  }
  return "it needs the symbol '" + symbol +
         "', which neither it nor the libraries it links define (is a library missing from its "
         "link line, or was it built against another version of one?)";
}

class Loader {
 public:
  explicit Loader(std::string path) : path_(std::move(path)) {}

  LoadedPlugin load() {
    if (const auto problem = shared_library_problem(path_)) fail(*problem);
    // A name without a slash would make dlopen search the library path.
    const std::string dlopen_path = path_.find('/') == std::string::npos ? "./" + path_ : path_;
    dlerror();
    std::vector<std::string> registered_while_loading;
    void* handle = nullptr;
    {
      const Registry::Diversion diversion(Registry::global(), registered_while_loading);
      handle = dlopen(dlopen_path.c_str(), RTLD_NOW | RTLD_LOCAL);
    }
    if (!handle) fail(explain_dlopen_error(last_dl_error()));
    // Never dlclose: a library whose constructors ran may have left pointers to its code.
    if (!registered_while_loading.empty()) {
      fail("it registers '" + registered_while_loading.front() +
           "' while it loads (MNRL_REGISTER_ENV is for envs built into a program): declare a "
           "plugin's envs in an MNRL_PLUGIN block, so that its SDK version is checked first");
    }

    dlerror();
    const auto entry = reinterpret_cast<EntryPoint>(dlsym(handle, kEntryPoint));
    if (!entry) {
      fail(std::string("it is not an mnrl env plugin: it exports no function '") + kEntryPoint +
           "' (declare its envs in an MNRL_PLUGIN block from envs/plugin.h; MNRL_REGISTER_ENV "
           "is for envs built into a program)");
    }
    const MnrlEnvPluginInfo* info = entry();
    check(info);

    Registry staged;
    try {
      info->register_envs(staged);
    } catch (const std::exception& e) {
      fail("registering its environments threw " + core::type_name(e) + ": " + e.what());
    } catch (...) {
      fail("registering its environments threw an exception that is not a std::exception");
    }
    LoadedPlugin loaded{path_, staged.ids()};
    if (loaded.env_ids.empty()) fail("it registers no environments");
    try {
      Registry::global().adopt(std::move(staged), path_);
    } catch (const std::invalid_argument& e) {
      fail(e.what());
    }
    return loaded;
  }

 private:
  // Checks what the entry point says before anything else of the plugin is used.
  void check(const MnrlEnvPluginInfo* info) const {
    if (!info) fail(std::string(kEntryPoint) + "() returned null");
    if (info->magic != MNRL_ENV_PLUGIN_MAGIC) {
      fail(std::string("its '") + kEntryPoint + "' is not mnrl's (wrong magic number)");
    }
    const bool compatible = info->sdk_major == MNRL_ENV_SDK_VERSION_MAJOR &&
                            info->sdk_minor <= MNRL_ENV_SDK_VERSION_MINOR;
    if (!compatible) {
      // mnrl_version is only known to exist under SDK major 1.
      const std::string built_with =
          info->sdk_major == MNRL_ENV_SDK_VERSION_MAJOR && info->mnrl_version
              ? " (mnrl " + std::string(info->mnrl_version) + ")"
              : "";
      fail("it was built against mnrl env SDK " + version_text(info->sdk_major, info->sdk_minor) +
           built_with + ", but this mnrl (" MNRL_VERSION_STRING ") provides SDK " +
           version_text(MNRL_ENV_SDK_VERSION_MAJOR, MNRL_ENV_SDK_VERSION_MINOR) +
           ": rebuild the plugin against this mnrl");
    }
    if (info->cxx11_abi != MNRL_ENV_PLUGIN_CXX11_ABI) {
      fail("it was built with _GLIBCXX_USE_CXX11_ABI=" + std::to_string(info->cxx11_abi) +
           " and mnrl with " + std::to_string(MNRL_ENV_PLUGIN_CXX11_ABI) +
           ": their std::string layouts differ; rebuild the plugin with the same setting");
    }
    if (!info->register_envs) fail("its plugin info has no registration function");
  }

  static std::string last_dl_error() {
    const char* error = dlerror();
    return error ? error : "unknown dlopen error";
  }

  [[noreturn]] void fail(const std::string& cause) const {
    throw PluginError("cannot load plugin '" + path_ + "': " + cause);
  }

  std::string path_;
};

}  // namespace

LoadedPlugin load_plugin(const std::string& path) {
  // Keyed by the canonical path, so "./libx.so" and "libx.so" are one plugin.
  static std::map<std::string, LoadedPlugin> loaded;
  std::error_code error;
  const std::string key = std::filesystem::weakly_canonical(path, error).string();
  if (const auto it = loaded.find(key); !error && it != loaded.end()) return it->second;
  LoadedPlugin plugin = Loader(path).load();
  if (!error) loaded.emplace(key, plugin);
  return plugin;
}

}  // namespace mnrl::envs
