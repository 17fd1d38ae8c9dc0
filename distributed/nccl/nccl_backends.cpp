// Backends "nccl" and "hierarchical", bootstrapped over MPI: for GPU gradients under mpirun,
// "auto" picks nccl where every rank is on this host, hierarchical where the job spans hosts
// (also where the launcher does not say how many ranks run here).
#include "distributed/backend_registry.h"
#include "distributed/mpi/mpi_communicator.h"
#include "distributed/nccl/hierarchical_communicator.h"
#include "distributed/nccl/nccl_communicator.h"

namespace mnrl::distributed {
namespace {

std::unique_ptr<Communicator> bootstrap_mpi(const char* backend) {
  if (!launched_by_mpi()) {
    throw CommunicatorError("distributed.backend " + std::string(backend) +
                            " bootstraps over MPI: start the job with mpirun or srun");
  }
  return std::make_unique<MpiCommunicator>();
}

class NcclBackend final : public Backend {
 public:
  std::unique_ptr<Communicator> make() const override {
    return std::make_unique<NcclCommunicator>(bootstrap_mpi("nccl"));
  }
  std::unique_ptr<Communicator> over(std::unique_ptr<Communicator> group) const override {
    return std::make_unique<NcclCommunicator>(std::move(group));
  }
  std::optional<int> auto_preference(const AutoChoice& choice) const override {
    if (!choice.launched_by_mpi || !choice.gpu_gradients || choice.spans_hosts) return std::nullopt;
    return 2;
  }
};

class HierarchicalBackend final : public Backend {
 public:
  std::unique_ptr<Communicator> make() const override {
    return std::make_unique<HierarchicalCommunicator>(bootstrap_mpi("hierarchical"));
  }
  std::unique_ptr<Communicator> over(std::unique_ptr<Communicator> group) const override {
    return std::make_unique<HierarchicalCommunicator>(std::move(group));
  }
  std::optional<int> auto_preference(const AutoChoice& choice) const override {
    if (!choice.launched_by_mpi || !choice.gpu_gradients || !choice.spans_hosts) {
      return std::nullopt;
    }
    return 2;
  }
};

}  // namespace

MNRL_REGISTER_BACKEND("nccl", NcclBackend);
MNRL_REGISTER_BACKEND("hierarchical", HierarchicalBackend);

}  // namespace mnrl::distributed
