// Backend "mpi" in a build without MPI: "auto" still picks it under mpirun, to say so.
#include "distributed/backend_registry.h"
#include "distributed/communicator.h"

namespace mnrl::distributed {
namespace {

class MpiUnavailable final : public Backend {
 public:
  std::unique_ptr<Communicator> make() const override {
    throw CommunicatorError(
        "distributed.backend mpi: this mnrl was built without MPI (install libopenmpi-dev and "
        "rebuild; scripts/setup.sh does)");
  }
  std::optional<int> auto_preference(const AutoChoice& choice) const override {
    if (!choice.launched_by_mpi) return std::nullopt;
    return 1;
  }
};

}  // namespace

MNRL_REGISTER_BACKEND("mpi", MpiUnavailable);

}  // namespace mnrl::distributed
