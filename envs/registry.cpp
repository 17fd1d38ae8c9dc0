#include "envs/registry.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <stdexcept>
#include <utility>

#include "core/stop_signal.h"
#include "core/text.h"
#include "envs/plugin_call.h"
#include "envs/time_limit.h"
#include "envs/wrapper.h"

namespace mnrl::envs {
namespace {

std::string described_origin(const std::string& origin) {
  return origin.empty() ? "built in" : "from plugin '" + origin + "'";
}

// The working directory when made; restore() goes back to it if it has changed since.
class WorkingDirectory {
 public:
  WorkingDirectory() : fd_(::open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {}
  ~WorkingDirectory() {
    if (fd_ >= 0) ::close(fd_);
  }
  WorkingDirectory(const WorkingDirectory&) = delete;
  WorkingDirectory& operator=(const WorkingDirectory&) = delete;

  // True if it had changed (and went back).
  bool restore() const {
    struct stat kept {
    }, now{};
    if (fd_ < 0 || ::fstat(fd_, &kept) != 0) return false;
    if (::stat(".", &now) == 0 && now.st_dev == kept.st_dev && now.st_ino == kept.st_ino) {
      return false;
    }
    return ::fchdir(fd_) == 0;
  }

 private:
  int fd_;
};

// Holds an env a plugin built and destroys it as a plugin call (an exit() or a crash in its
// destructor is reported naming it, wherever the env is dropped). Otherwise transparent.
class PluginEnvOwner final : public Wrapper {
 public:
  PluginEnvOwner(std::unique_ptr<Env> env, std::string description)
      : Wrapper(std::move(env), "plugin env"), description_(std::move(description)) {}
  ~PluginEnvOwner() override {
    const PluginCall call(description_.c_str(), "the destructor", nullptr, nullptr);
    destroy_inner_env();
  }

 private:
  std::string description_;  // for PluginCall
};

// Builds env `id` of plugin `origin` as a plugin call (a crash or an exit() in its constructor
// is reported naming it), held by a PluginEnvOwner, then puts back what the constructor may have
// changed of mnrl's process: the stop handlers (training could not be stopped with a checkpoint
// otherwise) and the working directory (mnrl's relative paths, a run directory or a checkpoint,
// would name other files).
std::unique_ptr<Env> construct_plugin_env(const std::string& id, const std::string& origin,
                                          const EnvFactory& factory, core::Kwargs& arguments) {
  const std::string description = "environment '" + id + "' from plugin '" + origin + "'";
  const WorkingDirectory working_directory;
  std::unique_ptr<Env> env;
  {
    const PluginCall call(description.c_str(), "the constructor", nullptr, nullptr);
    env = factory(arguments);
  }
  if (env) env = std::make_unique<PluginEnvOwner>(std::move(env), description);
  core::reassert_stop_handlers();
  if (working_directory.restore()) {
    static std::atomic<bool> said{false};  // once: every env of a vector would say it
    if (!said.exchange(true)) {
      std::fprintf(stderr,
                   "warning: the constructor of %s changed the working directory; mnrl changed "
                   "it back\n",
                   description.c_str());
    }
  }
  return env;
}

// Refuses kwargs the env never asked for: a misspelt key would otherwise be ignored silently.
void check_all_read(const std::string& id, const core::Kwargs& kwargs) {
  const std::vector<std::string> unread = kwargs.unread_keys();
  if (unread.empty()) return;
  const std::vector<std::string> asked = kwargs.asked_keys();
  const std::string& key = unread.front();
  throw kwargs.error(
      key, "environment '" + id + "' takes no argument '" + core::elided(key) + "'" +
               core::did_you_mean(key, asked) +
               (asked.empty() ? "; it takes no kwargs" : "; it reads: " + core::join(asked)));
}

}  // namespace

Registry& Registry::global() {
  static Registry registry;
  return registry;
}

void Registry::add(const std::string& id, EnvFactory factory, std::string origin) {
  if (diverted_) {
    diverted_->push_back(id);
    return;
  }
  if (id.empty()) throw std::invalid_argument("cannot register an environment with an empty id");
  if (!factory) throw std::invalid_argument("environment '" + id + "' has an empty factory");
  if (const auto it = entries_.find(id); it != entries_.end()) {
    throw std::invalid_argument("environment '" + id + "' is already registered (" +
                                described_origin(it->second.origin) + ")");
  }
  entries_.emplace(id, Entry{std::move(factory), std::move(origin)});
}

void Registry::add(const std::string& id, std::function<std::unique_ptr<Env>()> factory,
                   std::string origin) {
  if (!factory) throw std::invalid_argument("environment '" + id + "' has an empty factory");
  add(id, EnvFactory([factory = std::move(factory)](const core::Kwargs&) { return factory(); }),
      std::move(origin));
}

void Registry::adopt(Registry&& other, const std::string& origin) {
  for (const auto& entry : other.entries_) {
    if (const auto it = entries_.find(entry.first); it != entries_.end()) {
      throw std::invalid_argument("environment '" + entry.first + "' is already registered (" +
                                  described_origin(it->second.origin) + ")");
    }
  }
  for (auto& entry : other.entries_) {
    entries_.emplace(entry.first, Entry{std::move(entry.second.factory), origin});
  }
  other.entries_.clear();
}

bool Registry::contains(const std::string& id) const { return entries_.count(id) > 0; }

std::vector<std::string> Registry::ids() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const auto& entry : entries_) out.push_back(entry.first);  // std::map: already sorted
  return out;
}

const std::string& Registry::origin(const std::string& id) const { return find(id).origin; }

const Registry::Entry& Registry::find(const std::string& id) const {
  const auto it = entries_.find(id);
  if (it == entries_.end()) {
    const std::vector<std::string> known = ids();
    throw std::invalid_argument("unknown environment '" + id + "'" + core::did_you_mean(id, known) +
                                "; registered: " + (known.empty() ? "none" : core::join(known)));
  }
  return it->second;
}

std::unique_ptr<Env> Registry::make(const std::string& id, const core::Kwargs& kwargs,
                                    int max_episode_steps) const {
  const Entry& entry = find(id);
  if (max_episode_steps < 0) {
    throw std::invalid_argument("environment '" + id + "': max_episode_steps is " +
                                std::to_string(max_episode_steps) + ", must be >= 0");
  }
  core::Kwargs arguments = kwargs;  // a copy of its own records which keys the env reads
  std::unique_ptr<Env> env;
  try {
    env = entry.origin.empty() ? entry.factory(arguments)
                               : construct_plugin_env(id, entry.origin, entry.factory, arguments);
    check_all_read(id, arguments);
    if (!env) throw std::logic_error("the factory of environment '" + id + "' returned null");
    env->spec().validate();
    if (env->spec().id != id) {
      throw std::logic_error("environment registered as '" + id + "' reports the id '" +
                             env->spec().id + "'");
    }
  } catch (const core::KwargError&) {
    throw;  // already says where the argument was written
  } catch (const std::exception& e) {
    if (entry.origin.empty()) throw;
    throw std::invalid_argument("environment '" + id + "' from plugin '" + entry.origin +
                                "' cannot be built: " + core::type_name(e) + ": " + e.what());
  } catch (...) {
    if (entry.origin.empty()) throw;
    throw std::invalid_argument("environment '" + id + "' from plugin '" + entry.origin +
                                "' cannot be built: it threw something that is not a "
                                "std::exception");
  }
  const int limit = max_episode_steps > 0 ? max_episode_steps : env->spec().max_episode_steps;
  if (limit > 0) env = std::make_unique<TimeLimit>(std::move(env), limit);
  return env;
}

}  // namespace mnrl::envs
