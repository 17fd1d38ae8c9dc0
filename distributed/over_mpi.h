#pragma once

#include <cstdlib>
#include <memory>
#include <utility>

#include "distributed/communicator.h"

namespace mnrl::distributed {

// A backend bootstrapped over MPI whose collectives are its own (nccl, hierarchical): the
// ranks, barriers, the stall timeout and every point-to-point message are the mpi backend's.
// abort() ends the backend's own work (abort_own) and then the MPI job.
class OverMpi : public Communicator {
 public:
  explicit OverMpi(std::unique_ptr<Communicator> mpi) : mpi_(std::move(mpi)) {}

  int rank() const override { return mpi_->rank(); }
  int size() const override { return mpi_->size(); }
  int local_rank() const override { return mpi_->local_rank(); }
  void barrier() override { mpi_->barrier(); }
  void send(const at::Tensor& tensor, int destination, int tag) override {
    mpi_->send(tensor, destination, tag);
  }
  int receive(at::Tensor& tensor, int source, int tag) override {
    return mpi_->receive(tensor, source, tag);
  }
  void start_send(at::Tensor tensor, int destination, int tag) override {
    mpi_->start_send(std::move(tensor), destination, tag);
  }
  int sends_pending(int destination) override { return mpi_->sends_pending(destination); }
  void wait_for_sends(int at_most) override { mpi_->wait_for_sends(at_most); }
  bool has_message(int source, int tag) override { return mpi_->has_message(source, tag); }
  void set_stall_timeout(double seconds) override { mpi_->set_stall_timeout(seconds); }
  [[noreturn]] void abort(int code) override {
    abort_own();
    mpi_->abort(code);
    std::_Exit(code);  // not reached; GCC does not see [[noreturn]] through the virtual call
  }

 protected:
  // Aborts what the backend runs besides MPI (its NCCL communicator), before the MPI job ends.
  virtual void abort_own() {}

  std::unique_ptr<Communicator> mpi_;
};

}  // namespace mnrl::distributed
