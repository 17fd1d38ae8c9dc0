#pragma once

#include <memory>
#include <vector>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "distributed/over_mpi.h"

namespace mnrl::distributed {

// NCCL among the GPUs of one machine, MPI across machines (ChainerMN's hierarchical
// communicator), for CUDA tensors. all_reduce: an NCCL all-reduce within the node; the node's
// first rank copies the result to the host and enters an MPI all-reduce over every rank (the
// others enter zeros, or their node's copy for max, so the sums stay exact); the result is
// copied back to the GPU. broadcast and all_gather stage through the host over MPI (they run
// at the start and for checks, not per update). Nodes are told apart by host name.
// Point-to-point messages and barriers go over MPI (OverMpi). Registered as backend
// "hierarchical", which "auto" picks under mpirun for GPU gradients across hosts.
class HierarchicalCommunicator final : public OverMpi {
 public:
  // Throws CommunicatorError without CUDA LibTorch or a visible GPU.
  explicit HierarchicalCommunicator(std::unique_ptr<Communicator> mpi);
  ~HierarchicalCommunicator() override;

  int local_rank() const override { return node_rank_; }
  std::string backend() const override { return "hierarchical"; }
  void all_reduce(at::Tensor& tensor, ReduceOp op) override;
  void broadcast(at::Tensor& tensor, int root) override;
  at::Tensor all_gather(const at::Tensor& tensor) override;

 private:
  void abort_own() override;

  int node_rank_ = 0, node_size_ = 1;
  ncclComm_t node_comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

}  // namespace mnrl::distributed
