#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mnrl::distributed {

class Communicator;

// What "auto" knows when it picks a backend.
struct AutoChoice {
  bool launched_by_mpi = false;  // launched_by_mpi()
  bool gpu_gradients = false;    // the gradients live on GPUs (train.device cuda)
  bool spans_hosts = false;      // the ranks run on several hosts (or the launcher does not say)
};

// A communicator backend, registered by name with MNRL_REGISTER_BACKEND from its own folder
// (local/, mpi/, nccl/). A backend this build lacks registers an unavailable stand-in whose
// make() says how to get it, so that `distributed.backend` names stay the same everywhere.
class Backend {
 public:
  virtual ~Backend() = default;
  // This process' communicator over the job's ranks. Throws CommunicatorError saying why it
  // cannot here (not built, not launched under mpirun, no GPU, ...).
  virtual std::unique_ptr<Communicator> make() const = 0;
  // This backend over the ranks of `group`, an mpi communicator of some of the job's ranks (the
  // learners of an actors-and-learners job, whose world is mpi). Throws CommunicatorError
  // where it cannot (the default).
  virtual std::unique_ptr<Communicator> over(std::unique_ptr<Communicator> group) const;
  // How much "auto" wants it for `choice`: the highest preference registered wins; none:
  // "auto" never picks it.
  virtual std::optional<int> auto_preference(const AutoChoice& /*choice*/) const {
    return std::nullopt;
  }
};

// Backends by name. Not thread-safe: register at static initialization.
class BackendRegistry {
 public:
  static BackendRegistry& global();

  // Throws std::invalid_argument if `name` is taken.
  void add(const std::string& name, std::shared_ptr<const Backend> backend);
  // Throws CommunicatorError naming the registered backends.
  const Backend& at(const std::string& name) const;
  // The backend "auto" picks for `choice`; throws CommunicatorError if none wants it.
  std::string auto_choice(const AutoChoice& choice) const;
  std::vector<std::string> names() const;  // sorted

 private:
  std::map<std::string, std::shared_ptr<const Backend>> backends_;
};

// "auto" and every registered backend, for distributed.backend's check.
std::vector<std::string> backend_names_with_auto();

}  // namespace mnrl::distributed

// MNRL_REGISTER_BACKEND("mpi", MpiBackend): registers a default-constructed Backend subclass
// into the global registry at static initialization.
#define MNRL_REGISTER_BACKEND_CONCAT2(a, b) a##b
#define MNRL_REGISTER_BACKEND_CONCAT(a, b) MNRL_REGISTER_BACKEND_CONCAT2(a, b)
#define MNRL_REGISTER_BACKEND(name, Type)                                                     \
  static const bool MNRL_REGISTER_BACKEND_CONCAT(mnrl_registered_backend_, __COUNTER__) = [] { \
    ::mnrl::distributed::BackendRegistry::global().add(name, std::make_shared<const Type>());  \
    return true;                                                                            \
  }()
