#include "distributed/local/local_communicator.h"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "distributed/backend_registry.h"

namespace mnrl::distributed {

void LocalCommunicator::all_reduce(at::Tensor& tensor, ReduceOp) {
  TORCH_CHECK(tensor.defined(), "all_reduce: undefined tensor");
}

void LocalCommunicator::broadcast(at::Tensor& tensor, int root) {
  TORCH_CHECK(tensor.defined(), "broadcast: undefined tensor");
  if (root != 0) throw std::invalid_argument("broadcast: root " + std::to_string(root) + " of 1 rank");
}

at::Tensor LocalCommunicator::all_gather(const at::Tensor& tensor) {
  return tensor.unsqueeze(0).clone();
}

std::unique_ptr<Communicator> LocalCommunicator::split(int color) {
  if (color < 0) return nullptr;
  return std::make_unique<LocalCommunicator>();
}

void LocalCommunicator::abort(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(code);
}

namespace {

class LocalBackend final : public Backend {
 public:
  // Refused under a launcher of several ranks: each would train alone, all into one run.
  std::unique_ptr<Communicator> make() const override {
    if (const int ranks = ranks_in_this_job(); launched_by_mpi() && ranks > 1) {
      throw CommunicatorError("distributed.backend is local, but mpirun started " +
                              std::to_string(ranks) +
                              " ranks: use auto or mpi, or start one process");
    }
    return std::make_unique<LocalCommunicator>();
  }
  std::optional<int> auto_preference(const AutoChoice& choice) const override {
    if (choice.launched_by_mpi) return std::nullopt;
    return 0;
  }
};

}  // namespace

MNRL_REGISTER_BACKEND("local", LocalBackend);

}  // namespace mnrl::distributed
