#include "distributed/nccl/nccl_communicator.h"

#include <cstring>

#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>

#include "distributed/nccl/cuda_runtime_check.h"

namespace mnrl::distributed {

ncclUniqueId broadcast_unique_id(Communicator& mpi) {
  ncclUniqueId id;
  static_assert(sizeof(id) % sizeof(std::int64_t) == 0);
  if (mpi.rank() == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  at::Tensor words = at::zeros({static_cast<std::int64_t>(sizeof(id) / 8)}, at::kLong);
  std::memcpy(words.data_ptr(), &id, sizeof(id));
  mpi.broadcast(words, 0);
  std::memcpy(&id, words.data_ptr(), sizeof(id));
  return id;
}

NcclCommunicator::NcclCommunicator(std::unique_ptr<Communicator> mpi) : OverMpi(std::move(mpi)) {
  require_gpu("nccl", mpi_->local_rank());
  refuse_shared_gpus(*mpi_, "nccl");
  const ncclUniqueId id = broadcast_unique_id(*mpi_);
  check_nccl(ncclCommInitRank(&comm_, mpi_->size(), id, mpi_->rank()), "ncclCommInitRank");
  check_cuda(cudaStreamCreate(&stream_), "cudaStreamCreate");
}

NcclCommunicator::~NcclCommunicator() {
  if (stream_) cudaStreamDestroy(stream_);
  if (comm_) ncclCommDestroy(comm_);
}

// Tensors on the host (the training loop's flags, metrics and checks) go over MPI; NCCL
// carries the GPU ones.
void NcclCommunicator::all_reduce(at::Tensor& tensor, ReduceOp op) {
  if (tensor.is_cpu()) return mpi_->all_reduce(tensor, op);
  const ncclDataType_t type = nccl_type(tensor, "all_reduce");
  const ncclRedOp_t nccl_op = op == ReduceOp::kMax ? ncclMax : op == ReduceOp::kMean ? ncclAvg : ncclSum;
  TORCH_CHECK(op != ReduceOp::kMean || tensor.is_floating_point(), "all_reduce: a mean of integers");
  check_nccl(ncclAllReduce(tensor.data_ptr(), tensor.data_ptr(), static_cast<std::size_t>(tensor.numel()),
                           type, nccl_op, comm_, stream_),
             "ncclAllReduce");
  check_cuda(cudaStreamSynchronize(stream_), "all_reduce");
}

void NcclCommunicator::broadcast(at::Tensor& tensor, int root) {
  if (tensor.is_cpu()) return mpi_->broadcast(tensor, root);
  check_nccl(ncclBroadcast(tensor.data_ptr(), tensor.data_ptr(), static_cast<std::size_t>(tensor.numel()),
                           nccl_type(tensor, "broadcast"), root, comm_, stream_),
             "ncclBroadcast");
  check_cuda(cudaStreamSynchronize(stream_), "broadcast");
}

at::Tensor NcclCommunicator::all_gather(const at::Tensor& tensor) {
  if (tensor.is_cpu()) return mpi_->all_gather(tensor);
  const ncclDataType_t type = nccl_type(tensor, "all_gather");
  std::vector<std::int64_t> shape{size()};
  for (const auto dimension : tensor.sizes()) shape.push_back(dimension);
  at::Tensor gathered = at::empty(shape, tensor.options());
  check_nccl(ncclAllGather(tensor.data_ptr(), gathered.data_ptr(), static_cast<std::size_t>(tensor.numel()),
                           type, comm_, stream_),
             "ncclAllGather");
  check_cuda(cudaStreamSynchronize(stream_), "all_gather");
  return gathered;
}

void NcclCommunicator::abort_own() {
  if (comm_) ncclCommAbort(comm_);
}

}  // namespace mnrl::distributed
