#include "distributed/mpi/mpi_communicator.h"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <ATen/ops/empty.h>

#include "core/crash_note.h"
#include "core/liveness.h"

namespace mnrl::distributed {
namespace {

void finalize_mpi() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

void ensure_mpi_initialized() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return;
  // Open MPI's shared-memory transport moves a large message with a system call (CMA,
  // process_vm_readv) unless told otherwise; for gradient-sized messages, copying through its
  // shared buffers instead halves an all-reduce (256 KB at 2 ranks: 27-30 -> 16 us, 64 KB:
  // 15 -> 6 us, bench/allreduce_bench; docs/BENCHMARKS.md). A setting of the user's (mpirun
  // --mca, or the environment) wins; other MPIs ignore the variable.
  setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", /*overwrite=*/0);
  int provided = 0;
  {
    // Open MPI 4.1 can crash here: a peer that finished its start-up sends over TCP before
    // this process registered its handlers (seen under Slurm's PMIx: 2 job steps in some 70).
    // The message says so, so that such a crash is not taken for mnrl's.
    const core::CrashNote note(
        "inside MPI_Init (the MPI library's start-up, before mnrl's first message; running the "
        "job again usually passes)");
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  }
  // Errors come back as codes, turned into CommunicatorErrors that name the operation.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  std::atexit(finalize_mpi);
}

// Throws CommunicatorError for an MPI error code.
void check(int code, const char* operation) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw CommunicatorError(std::string("MPI ") + operation + " failed: " + text +
                          " (do all ranks run the same config and mnrl?)");
}

constexpr double kDefaultStallTimeout = 300.0;  // distributed.timeout's default

MPI_Datatype mpi_type(const at::Tensor& tensor, const char* call) {
  TORCH_CHECK(tensor.defined() && tensor.is_cpu() && tensor.is_contiguous(), call,
              ": a contiguous CPU tensor is needed");
  switch (tensor.scalar_type()) {
    case at::kFloat:
      return MPI_FLOAT;
    case at::kDouble:
      return MPI_DOUBLE;
    case at::kLong:
      return MPI_INT64_T;
    default:
      TORCH_CHECK(false, call, ": float, double or int64 tensors only, not ", tensor.scalar_type());
  }
}

int count_of(const at::Tensor& tensor) {
  TORCH_CHECK(tensor.numel() <= std::numeric_limits<int>::max(), "tensor too large for one MPI call");
  return static_cast<int>(tensor.numel());
}

}  // namespace

MpiCommunicator::MpiCommunicator() : MpiCommunicator((ensure_mpi_initialized(), MPI_COMM_WORLD)) {}

MpiCommunicator::MpiCommunicator(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  MPI_Comm node;  // the ranks sharing this machine's memory
  MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local_rank_);
  MPI_Comm_free(&node);
  watchdog_ = std::make_unique<StallWatchdog>(comm_, kDefaultStallTimeout);
  // Every communicator's watchdog hears that this rank is busy, or waits on another one.
  previous_alive_reporter_ = core::alive_reporter();
  core::set_alive_reporter(
      [previous = previous_alive_reporter_, watchdog = watchdog_.get()] {
        if (previous) previous();
        watchdog->keep_alive();
      });
  previous_waiting_reporter_ = core::waiting_reporter();
  core::set_waiting_reporter(
      [previous = previous_waiting_reporter_, watchdog = watchdog_.get()] {
        if (previous) previous();
        watchdog->keep_waiting();
      });
}

// Communicators end in the reverse order of their making (a sub-communicator before the job's),
// so the reporters they restore are still there.
MpiCommunicator::~MpiCommunicator() {
  core::set_alive_reporter(previous_alive_reporter_);
  core::set_waiting_reporter(previous_waiting_reporter_);
  watchdog_.reset();
  if (comm_ != MPI_COMM_WORLD) MPI_Comm_free(&comm_);
}

std::unique_ptr<Communicator> MpiCommunicator::split(int color) {
  MPI_Comm comm = MPI_COMM_NULL;
  collective("split", [&] {
    return MPI_Comm_split(comm_, color < 0 ? MPI_UNDEFINED : color, rank_, &comm);
  });
  if (comm == MPI_COMM_NULL) return nullptr;
  return std::unique_ptr<Communicator>(new MpiCommunicator(comm));
}

void MpiCommunicator::wait(MPI_Request& request, const char* operation, bool collective,
                           MPI_Status* status) {
  check(watchdog_->wait(request, operation, collective, status), operation);
}

void MpiCommunicator::join(const char* operation) {
  MPI_Request request;
  check(MPI_Ibarrier(comm_, &request), operation);
  wait(request, operation, /*collective=*/true);
}

template <class Call>
void MpiCommunicator::collective(const char* operation, const Call& call) {
  join(operation);
  watchdog_->begin_blocking(operation);
  const int code = call();
  watchdog_->end_blocking();
  check(code, operation);
}

// A tensor on a GPU crosses through host memory (the NCCL backends reduce on the GPU).
void MpiCommunicator::all_reduce(at::Tensor& tensor, ReduceOp op) {
  if (!tensor.is_cpu()) {
    at::Tensor host = tensor.to(at::kCPU);
    all_reduce(host, op);
    tensor.copy_(host);
    return;
  }
  const MPI_Datatype type = mpi_type(tensor, "all_reduce");
  collective("all_reduce", [&] {
    return MPI_Allreduce(MPI_IN_PLACE, tensor.data_ptr(), count_of(tensor), type,
                         op == ReduceOp::kMax ? MPI_MAX : MPI_SUM, comm_);
  });
  if (op == ReduceOp::kMean) {
    TORCH_CHECK(tensor.is_floating_point(), "all_reduce: a mean of integers");
    tensor.div_(size_);
  }
}

void MpiCommunicator::broadcast(at::Tensor& tensor, int root) {
  if (!tensor.is_cpu()) {
    at::Tensor host = tensor.to(at::kCPU);
    broadcast(host, root);
    tensor.copy_(host);
    return;
  }
  if (root < 0 || root >= size_) {
    throw std::invalid_argument("broadcast: root " + std::to_string(root) + " of " +
                                std::to_string(size_) + " ranks");
  }
  const MPI_Datatype type = mpi_type(tensor, "broadcast");
  collective("broadcast", [&] {
    return MPI_Bcast(tensor.data_ptr(), count_of(tensor), type, root, comm_);
  });
}

at::Tensor MpiCommunicator::all_gather(const at::Tensor& tensor) {
  if (!tensor.is_cpu()) return all_gather(tensor.to(at::kCPU)).to(tensor.device());
  const MPI_Datatype type = mpi_type(tensor, "all_gather");
  std::vector<std::int64_t> shape{size_};
  for (const auto dimension : tensor.sizes()) shape.push_back(dimension);
  at::Tensor gathered = at::empty(shape, tensor.options());
  collective("all_gather", [&] {
    return MPI_Allgather(tensor.data_ptr(), count_of(tensor), type, gathered.data_ptr(),
                         count_of(tensor), type, comm_);
  });
  return gathered;
}

void MpiCommunicator::barrier() { join("barrier"); }

void MpiCommunicator::send(const at::Tensor& tensor, int destination, int tag) {
  MPI_Request request;
  check(MPI_Isend(tensor.data_ptr(), count_of(tensor), mpi_type(tensor, "send"), destination, tag,
                  comm_, &request),
        "send");
  wait(request, "send", /*collective=*/false);
}

int MpiCommunicator::receive(at::Tensor& tensor, int source, int tag) {
  const MPI_Datatype type = mpi_type(tensor, "receive");
  MPI_Request request;
  MPI_Status status;
  check(MPI_Irecv(tensor.data_ptr(), count_of(tensor), type,
                  source == kAnySource ? MPI_ANY_SOURCE : source, tag, comm_, &request),
        "receive");
  wait(request, "receive", /*collective=*/false, &status);
  // A shorter message would leave the rest of the buffer stale: the sizes must agree exactly.
  int count = 0;
  MPI_Get_count(&status, type, &count);
  if (count != count_of(tensor)) {
    throw CommunicatorError("received " + std::to_string(count) + " values from rank " +
                            std::to_string(status.MPI_SOURCE) + ", expected " +
                            std::to_string(count_of(tensor)) +
                            " (do all ranks run the same config and mnrl?)");
  }
  return status.MPI_SOURCE;
}

void MpiCommunicator::start_send(at::Tensor tensor, int destination, int tag) {
  TORCH_CHECK(tensor.is_cpu() && tensor.is_contiguous(),
              "start_send: a contiguous CPU tensor (it is read while the call has returned)");
  PendingSend pending{MPI_REQUEST_NULL, std::move(tensor), destination};
  // Synchronous: in flight until the receiver has begun receiving it, however small (MPI
  // delivers small messages eagerly), so that what a sender keeps in flight bounds what
  // waits at the receiver.
  check(MPI_Issend(pending.tensor.data_ptr(), count_of(pending.tensor),
                  mpi_type(pending.tensor, "start_send"), destination, tag, comm_,
                  &pending.request),
        "start_send");
  pending_sends_.push_back(std::move(pending));
}

int MpiCommunicator::sends_pending(int destination) {
  int pending = 0;
  for (auto it = pending_sends_.begin(); it != pending_sends_.end();) {
    int done = 0;
    check(MPI_Test(&it->request, &done, MPI_STATUS_IGNORE), "sends_pending");
    if (done) {
      it = pending_sends_.erase(it);
      continue;
    }
    pending += destination == kAnySource || it->destination == destination;
    ++it;
  }
  return pending;
}

void MpiCommunicator::wait_for_sends(int at_most) {
  while (static_cast<int>(pending_sends_.size()) > std::max(at_most, 0) &&
         sends_pending(kAnySource) > std::max(at_most, 0)) {
    wait(pending_sends_.front().request, "send", /*collective=*/false);
    pending_sends_.pop_front();
  }
}

bool MpiCommunicator::has_message(int source, int tag) {
  int waiting = 0;
  check(MPI_Iprobe(source == kAnySource ? MPI_ANY_SOURCE : source, tag, comm_, &waiting,
                   MPI_STATUS_IGNORE),
        "has_message");
  return waiting != 0;
}

void MpiCommunicator::abort(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);  // MPI_Abort does not return; this is for the compiler
}

}  // namespace mnrl::distributed
