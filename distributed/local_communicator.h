#pragma once

#include "distributed/communicator.h"

namespace mnrl::distributed {

// A job of one process: every collective is the identity (all_gather adds a leading
// dimension of 1).
class LocalCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int local_rank() const override { return 0; }
  std::string backend() const override { return "local"; }
  void all_reduce(at::Tensor& tensor, ReduceOp op) override;
  void broadcast(at::Tensor& tensor, int root) override;
  at::Tensor all_gather(const at::Tensor& tensor) override;
  void barrier() override {}
  std::unique_ptr<Communicator> split(int color) override;
  // A job of one process has no other rank to talk to: these throw CommunicatorError.
  void send(const at::Tensor& tensor, int destination, int tag) override;
  int receive(at::Tensor& tensor, int source, int tag) override;
  void start_send(at::Tensor tensor, int destination, int tag) override;
  int sends_pending(int) override { return 0; }
  void wait_for_sends(int) override {}
  bool has_message(int, int) override { return false; }
  [[noreturn]] void abort(int code) override;
};

}  // namespace mnrl::distributed
