#pragma once

#include <memory>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "distributed/over_mpi.h"

namespace mnrl::distributed {

// NCCL over the GPUs of every rank, for CUDA tensors (one GPU per rank: local rank modulo the
// GPUs visible). Bootstrapped over MPI, as ChainerMN and TorchFort do: rank 0 makes the NCCL
// unique id and broadcasts it with MPI; every rank then joins the NCCL communicator. Each
// collective runs on a stream of its own and is waited for, so it blocks like the MPI
// backend's. Point-to-point messages (CPU tensors) and barriers go over MPI (OverMpi). abort()
// aborts the NCCL communicator, then the MPI job. Registered as backend "nccl", which "auto"
// picks under mpirun for GPU gradients when every rank is on one host.
class NcclCommunicator final : public OverMpi {
 public:
  // Throws CommunicatorError without CUDA LibTorch or a visible GPU.
  explicit NcclCommunicator(std::unique_ptr<Communicator> mpi);
  ~NcclCommunicator() override;

  std::string backend() const override { return "nccl"; }
  void all_reduce(at::Tensor& tensor, ReduceOp op) override;
  void broadcast(at::Tensor& tensor, int root) override;
  at::Tensor all_gather(const at::Tensor& tensor) override;

 private:
  void abort_own() override;

  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

// rank 0's NCCL unique id on every rank of `mpi` (a broadcast of its 128 bytes).
ncclUniqueId broadcast_unique_id(Communicator& mpi);

}  // namespace mnrl::distributed
