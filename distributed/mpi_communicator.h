#pragma once

#include "distributed/communicator.h"

namespace mnrl::distributed {

// Open MPI over CPU tensors. The first one made initializes MPI (MPI_THREAD_FUNNELED: only
// the thread that made it calls MPI) and MPI is finalized at exit. MPI's errors abort the
// whole job (MPI_ERRORS_ARE_FATAL): no rank is left waiting in a collective.
class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator();

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  std::string backend() const override { return "mpi"; }
  void all_reduce(at::Tensor& tensor, ReduceOp op) override;
  void broadcast(at::Tensor& tensor, int root) override;
  at::Tensor all_gather(const at::Tensor& tensor) override;
  void barrier() override;
  void send(const at::Tensor& tensor, int destination, int tag) override;
  int receive(at::Tensor& tensor, int source, int tag) override;
  // MPI_Abort on MPI_COMM_WORLD: mpirun ends every rank.
  [[noreturn]] void abort(int code) override;

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0;
};

}  // namespace mnrl::distributed
