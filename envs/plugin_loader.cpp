#include "envs/plugin_loader.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <vector>

#include "core/crc32c.h"
#include "core/files.h"
#include "core/text.h"
#include "envs/plugin.h"
#include "envs/registry.h"
#include "envs/shared_library_file.h"

namespace mnrl::envs {
namespace {

constexpr const char* kEntryPoint = "mnrl_env_plugin_entry";
// Far above any plugin: bounds what is read into memory.
constexpr std::uint64_t kMaxPluginBytes = std::uint64_t{1} << 30;
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
    return "it needs the symbol '" + symbol +
           "', which this mnrl (" MNRL_VERSION_STRING
           ") does not define: it was built against another version of mnrl or with another "
           "_GLIBCXX_USE_CXX11_ABI; rebuild it against this mnrl";
  }
  return "it needs the symbol '" + symbol +
         "', which neither it nor the libraries it links define (is a library missing from its "
         "link line, or was it built against another version of one?)";
}

// A plugin's bytes, read once, in a sealed anonymous file that dlopen loads through
// /proc/self/fd: the code that runs is the code checksummed, whatever becomes of the file.
class PrivateCopy {
 public:
  // Throws std::runtime_error with the cause.
  explicit PrivateCopy(const std::string& path) {
    const std::string bytes = core::read_regular_file(path, kMaxPluginBytes, "plugin");
    crc32c_ = core::crc32c(bytes.data(), bytes.size());
    fd_ = memfd_create("mnrl-plugin", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd_ < 0)
      throw std::runtime_error(std::string("cannot make its private copy: ") +
                               std::strerror(errno));
    for (std::size_t written = 0; written < bytes.size();) {
      const ssize_t n = write(fd_, bytes.data() + written, bytes.size() - written);
      if (n < 0) {
        close(fd_);
        throw std::runtime_error(std::string("cannot write its private copy: ") +
                                 std::strerror(errno));
      }
      written += static_cast<std::size_t>(n);
    }
    fcntl(fd_, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL);
  }
  ~PrivateCopy() {
    if (fd_ >= 0) close(fd_);  // what dlopen mapped stays mapped
  }
  // Keeps the copy open for the rest of the process, once loaded: glibc's dlopen knows a
  // loaded library by its name, /proc/self/fd/N, so N must not be reused for the next plugin
  // (which would then be taken for this one).
  void keep_open() { fd_ = -1; }
  PrivateCopy(const PrivateCopy&) = delete;
  PrivateCopy& operator=(const PrivateCopy&) = delete;

  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }
  std::uint32_t crc32c() const { return crc32c_; }

 private:
  int fd_ = -1;
  std::uint32_t crc32c_ = 0;
};

class Loader {
 public:
  explicit Loader(std::string path) : path_(std::move(path)) {}

  LoadedPlugin load() {
    if (const auto problem = shared_library_problem(path_)) fail(*problem);
    std::optional<PrivateCopy> copy;
    try {
      copy.emplace(path_);
    } catch (const std::exception& e) {
      fail(e.what());
    }
    const std::string dlopen_path = copy->path();
    dlerror();
    std::vector<std::string> registered_while_loading;
    void* handle = nullptr;
    {
      const Registry::Diversion diversion(Registry::global(), registered_while_loading);
      handle = dlopen(dlopen_path.c_str(), RTLD_NOW | RTLD_LOCAL);
    }
    if (!handle) fail(explain_dlopen_error(with_path(last_dl_error(), dlopen_path)));
    copy->keep_open();
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
    LoadedPlugin loaded{path_, staged.ids(), copy->crc32c()};
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

  // dlopen's message with the private copy's name replaced by the plugin's.
  std::string with_path(std::string message, const std::string& copy_path) const {
    for (auto at = message.find(copy_path); at != std::string::npos;
         at = message.find(copy_path, at + path_.size())) {
      message.replace(at, copy_path.size(), path_);
    }
    return message;
  }

  [[noreturn]] void fail(const std::string& cause) const {
    throw PluginError("cannot load plugin '" + path_ + "': " + cause);
  }

  std::string path_;
};

// The plugins loaded, by canonical path, so "./libx.so" and "libx.so" are one plugin.
std::map<std::string, LoadedPlugin>& loaded_plugins() {
  static std::map<std::string, LoadedPlugin> loaded;
  return loaded;
}

}  // namespace

LoadedPlugin load_plugin(const std::string& path) {
  std::error_code error;
  const std::string key = std::filesystem::weakly_canonical(path, error).string();
  auto& loaded = loaded_plugins();
  if (const auto it = loaded.find(key); !error && it != loaded.end()) return it->second;
  LoadedPlugin plugin = Loader(path).load();
  if (!error) loaded.emplace(key, plugin);
  return plugin;
}

std::optional<std::uint32_t> loaded_plugin_crc32c(const std::string& path) {
  std::error_code error;
  const std::string key = std::filesystem::weakly_canonical(path, error).string();
  const auto it = loaded_plugins().find(key);
  if (error || it == loaded_plugins().end()) return std::nullopt;
  return it->second.crc32c;
}

}  // namespace mnrl::envs
