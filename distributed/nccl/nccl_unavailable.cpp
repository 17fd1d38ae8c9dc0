// Backends "nccl" and "hierarchical" in a build without NCCL: named, never picked by "auto"
// (which takes mpi for GPU gradients then), and saying how to get them when asked for.
#include <string>

#include "distributed/backend_registry.h"
#include "distributed/communicator.h"

namespace mnrl::distributed {
namespace {

template <const char* kName>
class NcclUnavailable final : public Backend {
 public:
  std::unique_ptr<Communicator> make() const override {
    throw CommunicatorError("distributed.backend " + std::string(kName) +
                            ": this mnrl was built without NCCL (it needs the CUDA toolkit, NCCL "
                            "and MPI at build time)");
  }
  std::unique_ptr<Communicator> over(std::unique_ptr<Communicator> /*group*/) const override {
    return make();  // says why not
  }
};

constexpr char kNccl[] = "nccl";
constexpr char kHierarchical[] = "hierarchical";

}  // namespace

MNRL_REGISTER_BACKEND(kNccl, NcclUnavailable<kNccl>);
MNRL_REGISTER_BACKEND(kHierarchical, NcclUnavailable<kHierarchical>);

}  // namespace mnrl::distributed
