#pragma once

#include <memory>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "distributed/communicator.h"

namespace mnrl::distributed {

// NCCL over the GPUs of every rank, for CUDA tensors (one GPU per rank: local rank modulo the
// GPUs visible). Bootstrapped over MPI, as ChainerMN and TorchFort do: rank 0 makes the NCCL
// unique id and broadcasts it with MPI; every rank then joins the NCCL communicator. Each
// collective runs on a stream of its own and is waited for, so it blocks like the MPI
// backend's. Point-to-point messages (CPU tensors) and barriers go over MPI. abort() aborts
// the NCCL communicator, then the MPI job.
class NcclCommunicator final : public Communicator {
 public:
  // Throws CommunicatorError without CUDA LibTorch or a visible GPU.
  explicit NcclCommunicator(std::unique_ptr<Communicator> mpi);
  ~NcclCommunicator() override;

  int rank() const override { return mpi_->rank(); }
  int size() const override { return mpi_->size(); }
  int local_rank() const override { return mpi_->local_rank(); }
  std::string backend() const override { return "nccl"; }
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
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

// rank 0's NCCL unique id on every rank of `mpi` (a broadcast of its 128 bytes).
ncclUniqueId broadcast_unique_id(Communicator& mpi);

}  // namespace mnrl::distributed
