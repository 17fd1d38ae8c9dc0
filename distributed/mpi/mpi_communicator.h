#pragma once

#include <mpi.h>

#include <deque>
#include <functional>
#include <memory>

#include "distributed/communicator.h"
#include "distributed/mpi/stall_watchdog.h"

namespace mnrl::distributed {

// Open MPI over CPU tensors. The first one made initializes MPI (MPI_THREAD_FUNNELED: only
// the thread that made it calls MPI) and MPI is finalized at exit. An MPI error (a message
// larger than the buffer for it, ...) is a CommunicatorError naming the operation, which ends
// the job through the caller's abort. A collective first waits, under a StallWatchdog, for
// every rank to join it (a non-blocking barrier): a rank that never joins ends the job after
// the stall timeout (default 300 s). Then the blocking collective runs, with Open MPI's tuned
// algorithms (its non-blocking ones are 2-3x slower here), watched by the watchdog's thread
// for a rank stopped in the middle of it. Point-to-point messages are waited for under the
// watchdog directly.
class MpiCommunicator final : public Communicator {
 public:
  // The job's ranks (MPI_COMM_WORLD).
  MpiCommunicator();
  ~MpiCommunicator() override;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  std::string backend() const override { return "mpi"; }
  void all_reduce(at::Tensor& tensor, ReduceOp op) override;
  void broadcast(at::Tensor& tensor, int root) override;
  at::Tensor all_gather(const at::Tensor& tensor) override;
  void barrier() override;
  // A communicator of its own (MPI_Comm_split), with a stall watchdog of its own that hears
  // report_alive() too.
  std::unique_ptr<Communicator> split(int color) override;
  void send(const at::Tensor& tensor, int destination, int tag) override;
  int receive(at::Tensor& tensor, int source, int tag) override;
  void start_send(at::Tensor tensor, int destination, int tag) override;
  int sends_pending(int destination) override;
  void wait_for_sends(int at_most) override;
  bool has_message(int source, int tag) override;
  // MPI_Abort on MPI_COMM_WORLD: mpirun ends every rank.
  [[noreturn]] void abort(int code) override;
  void set_stall_timeout(double seconds) override { watchdog_->set_timeout(seconds); }

 private:
  // A communicator over `comm`, which it frees.
  explicit MpiCommunicator(MPI_Comm comm);

  // Waits for `request` under the watchdog; throws CommunicatorError if MPI reports an error.
  void wait(MPI_Request& request, const char* operation, bool collective,
            MPI_Status* status = nullptr);
  // Returns once every rank has entered collective `operation` (or ends the job, see above).
  void join(const char* operation);
  // join(), then `call` (a blocking MPI collective returning its error code) watched by the
  // watchdog's thread; throws CommunicatorError for an error.
  template <class Call>
  void collective(const char* operation, const Call& call);

  // A send in flight, and the tensor it reads from.
  struct PendingSend {
    MPI_Request request;
    at::Tensor tensor;
    int destination;
  };

  MPI_Comm comm_ = MPI_COMM_WORLD;
  int rank_ = 0, size_ = 1, local_rank_ = 0;
  std::deque<PendingSend> pending_sends_;  // oldest first
  std::unique_ptr<StallWatchdog> watchdog_;
  // The reporters (core/liveness.h) before this communicator's, restored at destruction.
  std::function<void()> previous_alive_reporter_, previous_waiting_reporter_;
};

}  // namespace mnrl::distributed
