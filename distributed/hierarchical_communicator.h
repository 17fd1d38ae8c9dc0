#pragma once

#include <memory>
#include <vector>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "distributed/communicator.h"

namespace mnrl::distributed {

// NCCL among the GPUs of one machine, MPI across machines (ChainerMN's hierarchical
// communicator), for CUDA tensors. all_reduce: an NCCL all-reduce within the node; the node's
// first rank copies the result to the host and enters an MPI all-reduce over every rank (the
// others enter zeros, or their node's copy for max, so the sums stay exact); the result is
// copied back to the GPU. broadcast and all_gather stage through the host over MPI (they run
// at the start and for checks, not per update). Nodes are told apart by host name.
class HierarchicalCommunicator final : public Communicator {
 public:
  // Throws CommunicatorError without CUDA LibTorch or a visible GPU.
  explicit HierarchicalCommunicator(std::unique_ptr<Communicator> mpi);
  ~HierarchicalCommunicator() override;

  int rank() const override { return mpi_->rank(); }
  int size() const override { return mpi_->size(); }
  int local_rank() const override { return node_rank_; }
  std::string backend() const override { return "hierarchical"; }
  void all_reduce(at::Tensor& tensor, ReduceOp op) override;
  void broadcast(at::Tensor& tensor, int root) override;
  at::Tensor all_gather(const at::Tensor& tensor) override;
  void barrier() override { mpi_->barrier(); }
  // Sub-communicators are the mpi backend's (IMPALA's and Ape-X's learners): throws.
  std::unique_ptr<Communicator> split(int) override {
    throw CommunicatorError("the " + backend() + " backend has no sub-communicators: use mpi");
  }
  void send(const at::Tensor& tensor, int destination, int tag) override;
  int receive(at::Tensor& tensor, int source, int tag) override;
  void start_send(at::Tensor tensor, int destination, int tag) override {
    mpi_->start_send(std::move(tensor), destination, tag);
  }
  int sends_pending(int destination) override { return mpi_->sends_pending(destination); }
  void wait_for_sends(int at_most) override { mpi_->wait_for_sends(at_most); }
  bool has_message(int source, int tag) override { return mpi_->has_message(source, tag); }
  [[noreturn]] void abort(int code) override;

 private:
  std::unique_ptr<Communicator> mpi_;
  int node_rank_ = 0, node_size_ = 1;
  ncclComm_t node_comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

}  // namespace mnrl::distributed
