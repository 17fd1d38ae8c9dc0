#include "envs/registry.h"

#include <stdexcept>

#include "core/text.h"
#include "envs/time_limit.h"

namespace mnrl::envs {
namespace {

std::string described_origin(const std::string& origin) {
  return origin.empty() ? "built in" : "from plugin '" + origin + "'";
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
    env = entry.factory(arguments);
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
