#pragma once

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mnrl::distributed {

// Waits for MPI requests so that no rank waits forever for one that is stopped (SIGSTOP), hung
// or stuck in an env step, and without burning a core while it waits.
//
// Protocol, on a communicator of its own (a duplicate of the job's): a rank that has waited a
// quarter of the timeout in one exchange tells every other rank WAITING(n), n being its count
// of collectives so far (-1 for a point-to-point wait), and again every quarter of the
// timeout, and tells its other communicators' ranks WAITING_ELSEWHERE (keep_waiting) while the
// ranks it waits for are accounted for (so a cycle of ranks waiting across communicators, a
// deadlock, is not); a rank working alone (evaluating, writing a checkpoint) sends ALIVE at
// most once a second (keep_alive). A rank waiting in a collective takes as missing the ranks that
// neither wait in the same collective nor were heard ALIVE or WAITING_ELSEWHERE lately; one waiting
// point to point (A3C, IMPALA, Ape-X), those heard neither ALIVE nor waiting (in anything) lately.
// At half the timeout it names them on stderr, and at the timeout it ends the job (MPI_Abort) with
// a message; also when every other rank waits too (a deadlock).
//
// A blocking call that every rank has joined (begin_blocking .. end_blocking) is watched by a
// thread of its own: if it lasts past the timeout (a rank stopped in the middle of it), the
// thread says so and ends this process, and mpirun then ends the job.
class StallWatchdog {
 public:
  StallWatchdog(MPI_Comm world, double timeout_seconds);
  ~StallWatchdog();

  void set_timeout(double seconds) { timeout_ = seconds; }
  // Waits for `request` (of a collective when `collective`); fills `status` if not null.
  // Returns MPI_Test's error code (MPI_SUCCESS when the request completed).
  int wait(MPI_Request& request, const char* operation, bool collective, MPI_Status* status);
  // Tells the other ranks that this one is busy, not stuck; at most once a second.
  void keep_alive();
  // Tells the other ranks that this one waits (on another communicator), not hangs; at most
  // once every eighth of the timeout.
  void keep_waiting();
  // Around a blocking call that every rank has joined; `operation` must outlive the call.
  void begin_blocking(const char* operation);
  void end_blocking();

 private:
  using Clock = std::chrono::steady_clock;
  // WAITING(n) in this communicator's collective n (-1: point to point); WAITING_ELSEWHERE, in
  // an exchange of another communicator of the same rank; ALIVE, working alone.
  enum Kind : long long { kWaiting = 1, kAlive = 2, kWaitingElsewhere = 3 };

  void tell_others(Kind kind, long long value);
  void receive_messages();
  std::vector<int> missing_ranks(bool collective) const;
  int job_rank(int rank) const { return job_ranks_[static_cast<std::size_t>(rank)]; }
  std::string rank_list(const std::vector<int>& ranks) const;  // as job ranks: "1, 3"
  // `announced`: when (in seconds waited) this wait last said WAITING; negative before.
  void watch(const char* operation, bool collective, double waited, double& announced,
             bool& warned);

  void guard_blocking_calls();

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  int job_size_ = 1;
  std::vector<int> job_ranks_;  // per rank of comm_: its rank in MPI_COMM_WORLD
  std::atomic<double> timeout_;
  std::atomic<std::int64_t> blocking_since_{0};  // steady-clock ns; 0 when not in a call
  std::atomic<const char*> blocking_operation_{""};
  std::mutex stop_mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;  // under stop_mutex_
  std::thread guard_;
  long long collectives_ = 0;                  // collectives waited for so far
  bool waiting_here_ = false;                  // in wait(): it says WAITING itself
  std::vector<long long> waiting_in_;          // per rank: the collective it said it waits in
  std::vector<Clock::time_point> alive_;       // per rank: when it last said ALIVE
  std::vector<Clock::time_point> waiting_at_;  // per rank: when it last said WAITING
  std::vector<Clock::time_point> waiting_elsewhere_at_;  // ... WAITING_ELSEWHERE
  Clock::time_point alive_sent_{}, waiting_sent_{};
  // Messages in flight: MPI needs each buffer unchanged until its send completes.
  struct Outgoing {
    MPI_Request request = MPI_REQUEST_NULL;
    long long message[2] = {0, 0};
  };
  std::list<Outgoing> in_flight_;
};

}  // namespace mnrl::distributed
