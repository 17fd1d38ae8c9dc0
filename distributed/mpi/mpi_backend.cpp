// Backend "mpi": the job mpirun (or srun --mpi=pmix) started; what "auto" picks there.
#include "distributed/backend_registry.h"
#include "distributed/mpi/mpi_communicator.h"

namespace mnrl::distributed {
namespace {

class MpiBackend final : public Backend {
 public:
  std::unique_ptr<Communicator> make() const override {
    return std::make_unique<MpiCommunicator>();
  }
  std::unique_ptr<Communicator> over(std::unique_ptr<Communicator> group) const override {
    return group;
  }
  std::optional<int> auto_preference(const AutoChoice& choice) const override {
    if (!choice.launched_by_mpi) return std::nullopt;
    return 1;
  }
};

}  // namespace

MNRL_REGISTER_BACKEND("mpi", MpiBackend);

}  // namespace mnrl::distributed
