#include "distributed/local_communicator.h"

#include <stdexcept>
#include <string>

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

}  // namespace mnrl::distributed
