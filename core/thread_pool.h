#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace mnrl::core {

// A fixed set of threads that runs one data-parallel loop at a time, for stepping a batch of
// environments in place (the EnvPool arrangement: threads live here, never in the envs).
//
// Work is split statically: [0, n) becomes num_threads contiguous chunks, and chunk k is thread
// k's (the caller is thread 0), so each env normally stays on one thread. A thread that has
// finished its own chunk runs any chunk nobody has started yet: a worker the OS has not
// scheduled (the machine is busy with other work) never holds up a run, which then costs what
// a serial loop costs rather than a scheduler time slice. Results never depend on which thread
// ran a chunk. A run costs well under a microsecond of overhead when the workers are awake:
// after each run they spin on a generation counter for up to ~50 us (a pause instruction per
// check, or std::this_thread::yield when the pool has more threads than the machine has cores)
// and only then block on a condition variable; the caller waits for completion the same way.
//
// Protocol of run g (caller C, workers W1..Wm, m = num_threads - 1):
//   C writes the task and n, sets unfinished = num_threads, then bumps `generation` to g
//   (publish, release). A thread takes chunk k by moving claims[k] from below g to g
//   (compare-exchange): exactly one thread takes each chunk of each run. Each thread, C
//   included, tries its own chunk first, then every other; for each chunk it takes it runs the
//   task (if the chunk is non-empty), stores any exception in the chunk's slot, then decrements
//   `unfinished` (release). C, having tried every chunk, waits for unfinished == 0 (acquire) and
//   only then reads the exception slots. Once C has tried every chunk, every claims[k] is g, so
//   a worker that wakes late (seeing g, or one already finished) takes nothing, and touches the
//   task only after taking a chunk of a run in progress.
// Sleeping: a thread that has spun long enough locks the mutex, announces itself in a sleeper
// count and waits on its condition variable with the same predicate. The other side makes its
// change (generation bump / last unfinished decrement) and then reads the sleeper count, both
// sequentially consistent, so at least one side sees the other: either the sleeper's predicate
// sees the change, or the waker sees the sleeper and notifies after taking the mutex. Nobody
// pays for a lock or a notify while everyone is spinning.
// Shutdown: the destructor sets `stop` and bumps the generation under the mutex, wakes all
// workers and joins them.
class ThreadPool {
 public:
  using Task = std::function<void(std::size_t begin, std::size_t end)>;

  // `num_threads` threads take part in each run, the calling thread included, so
  // num_threads - 1 workers are started. num_threads < 1 throws std::invalid_argument.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();  // joins the workers
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return num_threads_; }

  // Splits [0, n) into num_threads contiguous chunks, the same split for the same n every time
  // (chunk k runs on thread k unless another thread is done before thread k has started it),
  // calls task(begin, end) for each non-empty chunk and returns when all have finished. If
  // tasks throw, waits for all chunks, then rethrows the exception of the lowest-numbered chunk
  // that threw. Not reentrant; one caller at a time. With num_threads == 1 the task runs inline, without synchronization.
  void run(std::size_t n, const Task& task);

  // The split run() uses: chunk k of [0, n) in num_chunks parts is [begin, end). The first
  // n % num_chunks chunks get one index more than the others, so with n < num_chunks chunks
  // 0..n-1 hold one index each and the rest are empty.
  static std::pair<std::size_t, std::size_t> chunk_range(std::size_t n, int num_chunks, int k) {
    const auto chunks = static_cast<std::size_t>(num_chunks);
    const auto index = static_cast<std::size_t>(k);
    const std::size_t base = n / chunks;
    const std::size_t extra = n % chunks;
    const std::size_t begin = index * base + std::min(index, extra);
    return {begin, begin + base + (index < extra ? 1 : 0)};
  }

 private:
  void worker_loop(int index);
  // Returns the first generation different from `seen` (spins, then blocks).
  std::uint64_t wait_for_generation(std::uint64_t seen);
  // Runs every chunk of run `generation` that is still free, thread `self`'s own first.
  void take_chunks(std::uint64_t generation, int self);
  void wait_for_chunks();
  void stop_workers();

  // The generation of the last run in which a thread took the chunk; one cache line each.
  struct alignas(64) Claim {
    std::atomic<std::uint64_t> generation{0};
  };

  const int num_threads_;
  // Spin with std::this_thread::yield instead of a pause instruction (more threads than cores).
  const bool yield_while_spinning_;
  std::vector<std::thread> workers_;
  std::vector<std::exception_ptr> errors_;  // one slot per chunk
  std::unique_ptr<Claim[]> claims_;         // one per chunk

  // Written by the caller before each publish, read by the workers after it (same cache line).
  alignas(64) std::atomic<std::uint64_t> generation_{0};
  const Task* task_ = nullptr;
  std::size_t n_ = 0;
  std::atomic<bool> stop_{false};  // atomic: a worker that woke late may read it at any time
  // Chunks of the current run not yet finished.
  alignas(64) std::atomic<int> unfinished_{0};
  // Slow path: blocked threads announce themselves here.
  alignas(64) std::atomic<int> sleeping_workers_{0};
  std::atomic<bool> caller_sleeping_{false};
  std::mutex mutex_;
  std::condition_variable work_cv_;  // workers wait for a new generation
  std::condition_variable done_cv_;  // the caller waits for unfinished == 0
};

}  // namespace mnrl::core
