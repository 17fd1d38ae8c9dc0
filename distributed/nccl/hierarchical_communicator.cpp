#include "distributed/nccl/hierarchical_communicator.h"

#include <ATen/ops/full.h>
#include <ATen/ops/zeros.h>

#include <cstring>
#include <string>

#include "core/host_name.h"
#include "distributed/nccl/cuda_runtime_check.h"
#include "distributed/nccl/nccl_communicator.h"

namespace mnrl::distributed {
HierarchicalCommunicator::HierarchicalCommunicator(std::unique_ptr<Communicator> mpi)
    : OverMpi(std::move(mpi)) {
  require_gpu("hierarchical", mpi_->local_rank());
  refuse_shared_gpus(*mpi_, "hierarchical");
  // Which ranks share this machine: the same host name hash; the node's first rank leads.
  const at::Tensor hashes =
      mpi_->all_gather(at::full({1}, core::host_name_hash(), at::kLong)).flatten();
  const std::int64_t mine = hashes[rank()].item<std::int64_t>();
  int leader = -1;
  node_size_ = 0;
  for (int r = 0; r < size(); ++r) {
    if (hashes[r].item<std::int64_t>() != mine) continue;
    if (leader < 0) leader = r;
    if (r == rank()) node_rank_ = node_size_;
    ++node_size_;
  }
  // Every leader makes an id for its node; every rank takes its leader's.
  ncclUniqueId id;
  std::memset(&id, 0, sizeof(id));
  if (rank() == leader) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  at::Tensor words = at::zeros({static_cast<std::int64_t>(sizeof(id) / 8)}, at::kLong);
  std::memcpy(words.data_ptr(), &id, sizeof(id));
  const at::Tensor ids = mpi_->all_gather(words);
  std::memcpy(&id, ids[leader].data_ptr(), sizeof(id));
  check_nccl(ncclCommInitRank(&node_comm_, node_size_, id, node_rank_), "ncclCommInitRank");
  check_cuda(cudaStreamCreate(&stream_), "cudaStreamCreate");
}

HierarchicalCommunicator::~HierarchicalCommunicator() {
  if (stream_) cudaStreamDestroy(stream_);
  if (node_comm_) ncclCommDestroy(node_comm_);
}

// Tensors on the host (the training loop's flags, metrics and checks) go over MPI alone.
void HierarchicalCommunicator::all_reduce(at::Tensor& tensor, ReduceOp op) {
  if (tensor.is_cpu()) return mpi_->all_reduce(tensor, op);
  const ncclDataType_t type = nccl_type(tensor, "all_reduce");
  TORCH_CHECK(op != ReduceOp::kMean || tensor.is_floating_point(), "all_reduce: a mean of integers");
  const bool max = op == ReduceOp::kMax;
  check_nccl(ncclAllReduce(tensor.data_ptr(), tensor.data_ptr(), static_cast<std::size_t>(tensor.numel()),
                           type, max ? ncclMax : ncclSum, node_comm_, stream_),
             "ncclAllReduce");
  check_cuda(cudaStreamSynchronize(stream_), "all_reduce within the node");
  at::Tensor host = tensor.to(at::kCPU);
  if (!max && node_rank_ != 0) host.zero_();
  mpi_->all_reduce(host, max ? ReduceOp::kMax : ReduceOp::kSum);
  if (op == ReduceOp::kMean) host.div_(size());
  tensor.copy_(host);
}

void HierarchicalCommunicator::broadcast(at::Tensor& tensor, int root) {
  if (tensor.is_cpu()) return mpi_->broadcast(tensor, root);
  nccl_type(tensor, "broadcast");
  at::Tensor host = tensor.to(at::kCPU);
  mpi_->broadcast(host, root);
  tensor.copy_(host);
}

at::Tensor HierarchicalCommunicator::all_gather(const at::Tensor& tensor) {
  if (tensor.is_cpu()) return mpi_->all_gather(tensor);
  nccl_type(tensor, "all_gather");
  return mpi_->all_gather(tensor.to(at::kCPU)).to(tensor.device());
}

void HierarchicalCommunicator::abort_own() {
  if (node_comm_) ncclCommAbort(node_comm_);
}

}  // namespace mnrl::distributed
