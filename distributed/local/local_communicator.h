#pragma once

#include "distributed/communicator.h"

namespace mnrl::distributed {

// A job of one process: every collective is the identity (all_gather adds a leading
// dimension of 1); no point-to-point messages (Communicator's defaults refuse them).
// Registered as backend "local", which "auto" picks outside mpirun.
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
  [[noreturn]] void abort(int code) override;
};

}  // namespace mnrl::distributed
