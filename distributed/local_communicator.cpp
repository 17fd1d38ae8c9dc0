#include "distributed/local_communicator.h"

#include <cstdio>
#include <cstdlib>
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

void LocalCommunicator::send(const at::Tensor&, int destination, int) {
  throw CommunicatorError("send to rank " + std::to_string(destination) +
                          ": a job of one process has no other rank (start it with mpirun)");
}

std::unique_ptr<Communicator> LocalCommunicator::split(int color) {
  if (color < 0) return nullptr;
  return std::make_unique<LocalCommunicator>();
}

void LocalCommunicator::start_send(at::Tensor tensor, int destination, int tag) {
  send(tensor, destination, tag);
}

int LocalCommunicator::receive(at::Tensor&, int source, int) {
  throw CommunicatorError("receive from rank " + std::to_string(source) +
                          ": a job of one process has no other rank (start it with mpirun)");
}

void LocalCommunicator::abort(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(code);
}

}  // namespace mnrl::distributed
