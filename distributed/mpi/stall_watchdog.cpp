#include "distributed/mpi/stall_watchdog.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>

#include "core/liveness.h"
#include "core/text.h"

namespace mnrl::distributed {
namespace {

constexpr int kTag = 7001;
// Most exchanges of a training step complete within this: spin through it, then sleep.
constexpr double kSpinSeconds = 0.002;
constexpr double kWatchEverySeconds = 0.5;

// Every rank of `comm` as the rank of the job (MPI_COMM_WORLD) it is: messages name the ranks
// a user started, whichever sub-communicator waits.
std::vector<int> job_ranks_of(MPI_Comm comm, int size) {
  MPI_Group group, job;
  MPI_Comm_group(comm, &group);
  MPI_Comm_group(MPI_COMM_WORLD, &job);
  std::vector<int> ranks(static_cast<std::size_t>(size)), translated(ranks.size());
  for (int r = 0; r < size; ++r) ranks[static_cast<std::size_t>(r)] = r;
  MPI_Group_translate_ranks(group, size, ranks.data(), job, translated.data());
  MPI_Group_free(&group);
  MPI_Group_free(&job);
  return translated;
}

}  // namespace

std::string StallWatchdog::rank_list(const std::vector<int>& ranks) const {
  std::vector<std::string> names;
  for (const int rank : ranks) names.push_back(std::to_string(job_rank(rank)));
  return core::join(names);
}

StallWatchdog::StallWatchdog(MPI_Comm world, double timeout_seconds) : timeout_(timeout_seconds) {
  MPI_Comm_dup(world, &comm_);  // collective: every rank makes its communicators in one order
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  MPI_Comm_size(MPI_COMM_WORLD, &job_size_);
  job_ranks_ = job_ranks_of(comm_, size_);
  waiting_in_.assign(static_cast<std::size_t>(size_), -1);
  alive_.assign(static_cast<std::size_t>(size_), Clock::time_point{});
  waiting_at_.assign(static_cast<std::size_t>(size_), Clock::time_point{});
  waiting_elsewhere_at_.assign(static_cast<std::size_t>(size_), Clock::time_point{});
  guard_ = std::thread([this] { guard_blocking_calls(); });
}

StallWatchdog::~StallWatchdog() {
  {
    const std::lock_guard<std::mutex> lock(stop_mutex_);
    stopping_ = true;
  }
  stop_.notify_one();
  guard_.join();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  // Its communicator is never freed: the other ranks may still be sending to it (ALIVE,
  // WAITING), and Open MPI holds a message for a communicator id it does not know and gives
  // it to the next communicator made with that id (freed ids are reused), whose order of
  // messages from that rank it then breaks: the next split of the job hung in its first
  // collective. What that costs: a communicator (a context id) per communicator a process makes,
  // a handful per training run (the job's, and those a topology splits off). Unfinished sends
  // (16 bytes; over TCP one completes only as the peer progresses) complete in the
  // background, their buffers kept for good.
  static auto* unfinished = new std::list<Outgoing>();  // deliberately never destroyed
  for (Outgoing& send : in_flight_) MPI_Request_free(&send.request);
  unfinished->splice(unfinished->end(), in_flight_);
}

void StallWatchdog::begin_blocking(const char* operation) {
  blocking_operation_ = operation;
  blocking_since_ = Clock::now().time_since_epoch().count();
}

void StallWatchdog::end_blocking() { blocking_since_ = 0; }

void StallWatchdog::guard_blocking_calls() {
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(stop_mutex_);
      if (stop_.wait_for(lock, std::chrono::milliseconds(200), [this] { return stopping_; }))
        return;
    }
    const std::int64_t since = blocking_since_;
    if (since == 0) continue;
    const double lasted =
        std::chrono::duration<double>(Clock::now().time_since_epoch() - Clock::duration(since))
            .count();
    if (lasted < timeout_) continue;
    // Not MPI_Abort: only the main thread may call MPI. A rank that ends without finalizing
    // makes mpirun end the job.
    std::fprintf(stderr,
                 "mnrl (rank %d of %d): %s, which every rank had joined, has not completed "
                 "within distributed.timeout = %g s (a rank stopped or hung in the middle of "
                 "it); ending the job\n",
                 job_rank(rank_), job_size_, blocking_operation_.load(), timeout_.load());
    std::fflush(stderr);
    _exit(1);
  }
}

int StallWatchdog::wait(MPI_Request& request, const char* operation, bool collective,
                        MPI_Status* status) {
  if (collective) ++collectives_;
  waiting_here_ = true;
  struct Done {
    bool& waiting;
    ~Done() { waiting = false; }
  } done_waiting{waiting_here_};
  const auto start = Clock::now();
  double next_watch = kWatchEverySeconds;
  double announced = -1.0;
  bool warned = false;
  for (;;) {
    int done = 0;
    const int code = MPI_Test(&request, &done, status ? status : MPI_STATUS_IGNORE);
    if (code != MPI_SUCCESS || done) return code;
    const double waited = std::chrono::duration<double>(Clock::now() - start).count();
    if (waited < kSpinSeconds) continue;
    std::this_thread::sleep_for(std::chrono::microseconds(waited < 0.1 ? 20 : 1000));
    if (waited >= next_watch) {
      watch(operation, collective, waited, announced, warned);
      next_watch = waited + kWatchEverySeconds;
    }
  }
}

void StallWatchdog::keep_alive() {
  const auto now = Clock::now();
  if (now - alive_sent_ < std::chrono::duration<double>(std::min(1.0, timeout_ / 8))) return;
  alive_sent_ = now;
  tell_others(kAlive, 0);
}

void StallWatchdog::keep_waiting() {
  if (waiting_here_) return;  // its own wait says WAITING on this communicator
  const auto now = Clock::now();
  if (now - waiting_sent_ < std::chrono::duration<double>(timeout_ / 8)) return;
  waiting_sent_ = now;
  tell_others(kWaitingElsewhere, 0);
}

void StallWatchdog::tell_others(Kind kind, long long value) {
  in_flight_.remove_if([](Outgoing& send) {
    int done = 0;
    MPI_Test(&send.request, &done, MPI_STATUS_IGNORE);
    return done != 0;
  });
  for (int rank = 0; rank < size_; ++rank) {
    if (rank == rank_) continue;
    Outgoing& send = in_flight_.emplace_back();
    send.message[0] = kind;
    send.message[1] = value;
    MPI_Isend(send.message, 2, MPI_LONG_LONG, rank, kTag, comm_, &send.request);
  }
  receive_messages();
}

void StallWatchdog::receive_messages() {
  for (;;) {
    int pending = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kTag, comm_, &pending, &status);
    if (!pending) return;
    long long message[2] = {0, 0};
    int count = 0;
    MPI_Get_count(&status, MPI_LONG_LONG, &count);
    if (count != 2) {  // not ours: take it off the queue and ignore it
      std::vector<char> ignored(static_cast<std::size_t>(std::max(count, 0)) * 8 + 8);
      MPI_Recv(ignored.data(), static_cast<int>(ignored.size()), MPI_BYTE, status.MPI_SOURCE, kTag,
               comm_, MPI_STATUS_IGNORE);
      continue;
    }
    MPI_Recv(message, 2, MPI_LONG_LONG, status.MPI_SOURCE, kTag, comm_, MPI_STATUS_IGNORE);
    const auto from = static_cast<std::size_t>(status.MPI_SOURCE);
    if (message[0] == kWaiting) waiting_in_[from] = message[1];
    if (message[0] == kWaiting || message[0] == kWaitingElsewhere) waiting_at_[from] = Clock::now();
    if (message[0] == kWaitingElsewhere) waiting_elsewhere_at_[from] = Clock::now();
    if (message[0] == kAlive) alive_[from] = Clock::now();
  }
}

std::vector<int> StallWatchdog::missing_ranks(bool collective) const {
  const auto lately = Clock::now() - std::chrono::duration_cast<Clock::duration>(
                                         std::chrono::duration<double>(timeout_ / 2));
  std::vector<int> missing;
  for (int rank = 0; rank < size_; ++rank) {
    const auto r = static_cast<std::size_t>(rank);
    // A rank waiting on another communicator is accounted for there: whoever it waits for is
    // missing to it, or alive (a stage 0 waiting for rank 0's evaluation, its other stages for
    // it).
    if (rank == rank_ || (collective && waiting_in_[r] == collectives_) || alive_[r] > lately ||
        waiting_elsewhere_at_[r] > lately || (!collective && waiting_at_[r] > lately)) {
      continue;
    }
    missing.push_back(rank);
  }
  return missing;
}

void StallWatchdog::watch(const char* operation, bool collective, double waited, double& announced,
                          bool& warned) {
  receive_messages();
  const std::vector<int> missing = missing_ranks(collective);
  if (waited >= timeout_ / 4 && (announced < 0 || waited - announced >= timeout_ / 4)) {
    // To the ranks of this rank's other communicators, which then count it as present: only
    // while every rank it waits for is itself accounted for (alive, or waiting on ranks that
    // are), so that ranks waiting for one another across communicators (a deadlock) still end
    // the job at the timeout.
    if (missing.empty()) core::report_waiting();
    tell_others(kWaiting, collective ? collectives_ : -1);
    announced = waited;
  }
  const std::string me =
      "mnrl (rank " + std::to_string(job_rank(rank_)) + " of " + std::to_string(job_size_) + ")";
  if (!warned && waited >= timeout_ / 2 && !missing.empty()) {
    std::fprintf(stderr,
                 "%s: waiting %.0f s in %s for rank(s) %s (stopped, hung, or stuck in an env "
                 "step?); the job ends if they have not joined at distributed.timeout = %g s\n",
                 me.c_str(), waited, operation, rank_list(missing).c_str(), timeout_.load());
    warned = true;
  }
  if (waited < timeout_) return;
  // Every other rank waiting in this same collective, which still does not complete (they
  // called different collectives: a bug), or point to point for one another (a deadlock):
  // they would wait forever too.
  const auto lately = Clock::now() - std::chrono::duration_cast<Clock::duration>(
                                         std::chrono::duration<double>(timeout_ / 2));
  bool all_waiting = true;
  for (int rank = 0; rank < size_; ++rank) {
    const auto r = static_cast<std::size_t>(rank);
    all_waiting = all_waiting &&
                  (rank == rank_ || (collective ? waiting_in_[r] == collectives_
                                                : waiting_at_[r] > lately && alive_[r] <= lately));
  }
  if (missing.empty() && !all_waiting) return;  // the others are busy, and say so
  if (missing.empty()) {
    std::fprintf(stderr,
                 "%s: every rank has waited %.0f s in a collective that does not "
                 "complete (%s here): the ranks disagree on what to exchange; ending the job\n",
                 me.c_str(), waited, operation);
  } else {
    std::fprintf(stderr,
                 "%s: rank(s) %s did not join %s within distributed.timeout = %g s "
                 "(stopped, hung, or stuck in an env step); ending the job\n",
                 me.c_str(), rank_list(missing).c_str(), operation, timeout_.load());
  }
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

}  // namespace mnrl::distributed
