#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace mnrl::core {

// A fixed set of threads that runs one data-parallel loop at a time, for stepping a batch of
// environments in place (the EnvPool arrangement: threads live here, never in the envs).
//
// Work is split statically: [0, n) becomes num_threads contiguous chunks and chunk k always runs
// on thread k (the caller is thread 0), so each env stays on one thread and results do not
// depend on timing. A run costs well under a microsecond of overhead when the workers are awake:
// after each run they spin on a generation counter for up to ~50 us (a pause instruction per
// check, or std::this_thread::yield when the pool has more threads than the machine has cores)
// and only then block on a condition variable; the caller waits for completion the same way.
//
// Protocol of one run (caller C, workers W1..Wm, m = num_threads - 1):
//   C writes the task and n, sets pending = m, then bumps `generation` (publish, release).
//   Each W sees the new generation (acquire), runs its chunk if non-empty, stores any exception
//   in its slot, then decrements `pending` (release). C runs chunk 0, waits for pending == 0
//   (acquire), and only then reads the exception slots, so nothing is read or rewritten while a
//   worker can still touch it. Every worker takes part in every run, even with an empty chunk,
//   so no worker can miss a generation.
// Sleeping: a thread that has spun long enough locks the mutex, announces itself in a sleeper
// count and waits on its condition variable with the same predicate. The other side makes its
// change (generation bump / last pending decrement) and then reads the sleeper count, both
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
  // (chunk k always runs on thread k; the caller runs chunk 0), calls task(begin, end) for each
  // non-empty chunk and returns when all have finished. If tasks throw, waits for all chunks,
  // then rethrows the exception of the lowest-numbered chunk that threw. Not reentrant; one
  // caller at a time. With num_threads == 1 the task runs inline, without synchronization.
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
  void wait_for_workers();
  void stop_workers();

  const int num_threads_;
  // Spin with std::this_thread::yield instead of a pause instruction (more threads than cores).
  const bool yield_while_spinning_;
  std::vector<std::thread> workers_;
  std::vector<std::exception_ptr> errors_;  // one slot per chunk

  // Written by the caller before each publish, read by the workers after it (same cache line).
  alignas(64) std::atomic<std::uint64_t> generation_{0};
  const Task* task_ = nullptr;
  std::size_t n_ = 0;
  bool stop_ = false;
  // Workers that have not finished the current run.
  alignas(64) std::atomic<int> pending_{0};
  // Slow path: blocked threads announce themselves here.
  alignas(64) std::atomic<int> sleeping_workers_{0};
  std::atomic<bool> caller_sleeping_{false};
  std::mutex mutex_;
  std::condition_variable work_cv_;  // workers wait for a new generation
  std::condition_variable done_cv_;  // the caller waits for pending == 0
};

}  // namespace mnrl::core
