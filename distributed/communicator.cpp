#include "distributed/communicator.h"

#include <cstdlib>

#include "distributed/local_communicator.h"
#ifdef MNRL_WITH_MPI
#include "distributed/mpi_communicator.h"
#endif
#ifdef MNRL_WITH_NCCL
#include "distributed/hierarchical_communicator.h"
#include "distributed/nccl_communicator.h"
#endif

namespace mnrl::distributed {

bool launched_by_mpi() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    if (std::getenv(variable) != nullptr) return true;
  }
  return false;
}

int ranks_on_this_host() {
  for (const char* variable :
       {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"}) {
    if (const char* value = std::getenv(variable)) {
      char* end = nullptr;
      const long ranks = std::strtol(value, &end, 10);
      if (end != value && *end == '\0' && ranks >= 1 && ranks <= 1 << 20) {
        return static_cast<int>(ranks);
      }
    }
  }
  return 1;
}

std::unique_ptr<Communicator> make_communicator(const std::string& backend, bool gpu_gradients) {
#ifdef MNRL_WITH_NCCL
  if (backend == "auto" && gpu_gradients && launched_by_mpi()) {
    // Fewer ranks here than in the job (or a launcher that does not say): NCCL within each host,
    // MPI between hosts.
    const bool spans_hosts = ranks_on_this_host() < MpiCommunicator().size();
    return make_communicator(spans_hosts ? "hierarchical" : "nccl");
  }
#endif
  if (backend == "local") {
#ifdef MNRL_WITH_MPI
    if (launched_by_mpi() && MpiCommunicator().size() > 1) {
      throw CommunicatorError("distributed.backend is local, but mpirun started " +
                              std::to_string(MpiCommunicator().size()) +
                              " ranks: use auto or mpi, or start one process");
    }
#endif
    return std::make_unique<LocalCommunicator>();
  }
  if (backend == "mpi" || (backend == "auto" && launched_by_mpi())) {
#ifdef MNRL_WITH_MPI
    return std::make_unique<MpiCommunicator>();
#else
    throw CommunicatorError("distributed.backend " + backend +
                            ": this mnrl was built without MPI (install libopenmpi-dev and "
                            "rebuild; scripts/setup.sh does)");
#endif
  }
  if (backend == "auto") return std::make_unique<LocalCommunicator>();
  if (backend == "nccl" || backend == "hierarchical") {
#ifdef MNRL_WITH_NCCL
    if (!launched_by_mpi()) {
      throw CommunicatorError("distributed.backend " + backend +
                              " bootstraps over MPI: start the job with mpirun or srun");
    }
    auto mpi = std::make_unique<MpiCommunicator>();
    if (backend == "nccl") return std::make_unique<NcclCommunicator>(std::move(mpi));
    return std::make_unique<HierarchicalCommunicator>(std::move(mpi));
#else
    throw CommunicatorError("distributed.backend " + backend +
                            ": this mnrl was built without NCCL (it needs the CUDA toolkit, NCCL "
                            "and MPI at build time)");
#endif
  }
  throw CommunicatorError("unknown distributed.backend '" + backend +
                          "' (expected auto, local, mpi, nccl or hierarchical)");
}

}  // namespace mnrl::distributed
