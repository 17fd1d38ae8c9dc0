#include "distributed/backend_registry.h"

#include <stdexcept>

#include "core/text.h"
#include "distributed/communicator.h"

namespace mnrl::distributed {

std::unique_ptr<Communicator> Backend::over(std::unique_ptr<Communicator> /*group*/) const {
  throw CommunicatorError(
      "distributed.backend: this backend does not run over a group of the job's ranks (the "
      "learners of an actors-and-learners job): use mpi, nccl or hierarchical");
}

BackendRegistry& BackendRegistry::global() {
  static BackendRegistry registry;
  return registry;
}

void BackendRegistry::add(const std::string& name, std::shared_ptr<const Backend> backend) {
  if (name.empty() || name == "auto" || !backend) {
    throw std::invalid_argument("a backend needs a name other than auto and a definition");
  }
  if (!backends_.emplace(name, std::move(backend)).second) {
    throw std::invalid_argument("backend '" + name + "' is already registered");
  }
}

const Backend& BackendRegistry::at(const std::string& name) const {
  const auto found = backends_.find(name);
  if (found == backends_.end()) {
    throw CommunicatorError("unknown distributed.backend '" + name + "' (expected " +
                            core::listed(backend_names_with_auto(), "or") + ")");
  }
  return *found->second;
}

std::string BackendRegistry::auto_choice(const AutoChoice& choice) const {
  std::string best;
  std::optional<int> best_preference;
  for (const auto& [name, backend] : backends_) {
    const std::optional<int> preference = backend->auto_preference(choice);
    if (preference && (!best_preference || *preference > *best_preference)) {
      best = name;
      best_preference = preference;
    }
  }
  if (!best_preference) throw CommunicatorError("distributed.backend auto: no backend applies");
  return best;
}

std::vector<std::string> BackendRegistry::names() const {
  std::vector<std::string> names;
  for (const auto& [name, backend] : backends_) names.push_back(name);
  return names;
}

std::vector<std::string> backend_names_with_auto() {
  std::vector<std::string> names{"auto"};
  for (const std::string& name : BackendRegistry::global().names()) names.push_back(name);
  return names;
}

}  // namespace mnrl::distributed
