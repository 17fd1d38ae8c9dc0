#pragma once

#include <ATen/core/Tensor.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "distributed/launcher.h"

namespace mnrl::distributed {

// A backend cannot be used here (not built, not launched under mpirun, ...); the message says
// why and what to do.
class CommunicatorError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class ReduceOp { kSum, kMean, kMax };

// Collective operations over the processes (ranks) of one training job. Every rank must call
// the same collectives in the same order with tensors of the same shape and type; they block
// until all ranks have joined. Tensors are contiguous CPU tensors of float, double or int64
// (MPI backend). Every rank receives the same bits (Open MPI's reduction algorithms compute
// each element once and share it; the tests check this).
//
// A backend implements the pure virtuals; sub-communicators and point-to-point messages are
// optional (the defaults refuse them, as a job of one process must), and a backend
// bootstrapped over MPI takes MPI's (OverMpi, distributed/over_mpi.h).
class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Rank among the processes on this machine (for picking a GPU).
  virtual int local_rank() const = 0;
  virtual std::string backend() const = 0;

  // In place: every rank ends with the elementwise sum / mean / max over all ranks.
  virtual void all_reduce(at::Tensor& tensor, ReduceOp op) = 0;
  // In place: every rank ends with `root`'s values.
  virtual void broadcast(at::Tensor& tensor, int root) = 0;
  // [size, ...tensor.shape]: row r is rank r's tensor.
  virtual at::Tensor all_gather(const at::Tensor& tensor) = 0;
  virtual void barrier() = 0;

  // Ends every process of the job now with exit status `code`, so that no rank waits forever
  // for one that failed. The caller says why first (on stderr, naming its rank).
  [[noreturn]] virtual void abort(int code) = 0;

  // The ranks that pass the same `color` (>= 0) as a communicator of their own, ranked in the
  // order they have here; null for a rank that passes -1. Collective: every rank calls it.
  // Throws CommunicatorError where the backend has none (IMPALA's and Ape-X's learners need
  // the mpi backend's).
  virtual std::unique_ptr<Communicator> split(int color);

  // Point to point, for A3C's parameter server. send() returns once `tensor` may be reused;
  // receive() fills `tensor` (same size and type as sent) from rank `source`, or from the
  // first rank to send with `tag` when source is kAnySource, and returns the sender's rank.
  // Throw CommunicatorError in a job of one process.
  static constexpr int kAnySource = -1;
  virtual void send(const at::Tensor& tensor, int destination, int tag);
  virtual int receive(at::Tensor& tensor, int source, int tag);

  // Point to point without waiting, for IMPALA's and Ape-X's actors and learners (a bounded
  // queue of messages in flight). start_send() begins sending `tensor` (held, and not to be
  // changed, until the send completes) and returns at once; a send completes once the
  // receiver has begun receiving it (not when the message has merely been buffered).
  // sends_pending() completes what has been delivered and counts this rank's sends still in
  // flight (to `destination`, or to any rank with kAnySource); wait_for_sends() returns once
  // at most `at_most` are (oldest first). The messages of one sender with one tag arrive in the
  // order sent. has_message() says whether a message with `tag` from `source` (or any rank) is
  // waiting for receive(), which then does not wait. A rank completes its sends
  // (wait_for_sends(0)) before the job ends. In a job of one process nothing is in flight
  // and start_send() throws CommunicatorError.
  virtual void start_send(at::Tensor tensor, int destination, int tag);
  virtual int sends_pending(int /*destination*/ = kAnySource) { return 0; }
  virtual void wait_for_sends(int /*at_most*/) {}
  virtual bool has_message(int /*source*/, int /*tag*/) { return false; }

  // How long a rank waits in one exchange for ranks that neither join nor report being busy
  // (core::report_alive) before it ends the job with a message naming them (distributed.
  // timeout); a warning comes at half of it. The MPI backend's; the others wait as they do.
  virtual void set_stall_timeout(double /*seconds*/) {}
};

// The communicator of `backend`, a registered backend (distributed/backend_registry.h): "local"
// (one process, always built), "mpi" (Open MPI; the job was started with mpirun), "nccl" /
// "hierarchical" (CUDA tensors; built with MNRL_WITH_NCCL, run under mpirun with CUDA LibTorch
// and a GPU), or "auto": local in one process; under mpirun, for `gpu_gradients` (train.device
// cuda) nccl when every rank is on one host and hierarchical otherwise, also where the launcher
// does not say (mpi where mnrl was built without NCCL), else mpi.
// Throws CommunicatorError for an unknown or unavailable backend.
std::unique_ptr<Communicator> make_communicator(const std::string& backend,
                                                bool gpu_gradients = false);
// `backend` over `group`, an mpi communicator of some of the job's ranks (the learners of an
// actors-and-learners job, whose world is mpi); "auto" picks as make_communicator() does.
std::unique_ptr<Communicator> make_group_communicator(const std::string& backend,
                                                      bool gpu_gradients,
                                                      std::unique_ptr<Communicator> group);

}  // namespace mnrl::distributed
