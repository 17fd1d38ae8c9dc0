#include "core/thread_pool.h"

#include <chrono>
#include <stdexcept>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace mnrl::core {
namespace {

// Long enough to cover the gap between two vector-env steps when the policy is a small network,
// short enough that idle workers give their cores back quickly.
constexpr std::chrono::microseconds kSpinTime{50};

// Tells the core this is a spin-wait (saves power, frees the sibling hyper-thread).
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#else
  std::this_thread::yield();
#endif
}

// Spins until done() or until kSpinTime has passed; returns done() at the end. The clock is read
// only every few iterations. With `yield` the spinning thread gives its core away between checks
// (std::this_thread::yield) instead of pausing on it.
template <typename Done>
bool spin_until(Done done, bool yield) {
  if (done()) return true;
  const auto deadline = std::chrono::steady_clock::now() + kSpinTime;
  for (;;) {
    for (int i = 0; i < 32; ++i) {
      if (yield) {
        std::this_thread::yield();
      } else {
        cpu_relax();
      }
      if (done()) return true;
    }
    if (std::chrono::steady_clock::now() >= deadline) return done();
  }
}

// With more threads than cores a thread that pauses on its core holds it while the thread it
// waits for cannot run, so such pools yield while they spin.
bool more_threads_than_cores(int num_threads) {
  const unsigned cores = std::thread::hardware_concurrency();
  return cores != 0 && static_cast<unsigned>(num_threads) > cores;
}

int checked_num_threads(int num_threads) {
  if (num_threads < 1) {
    throw std::invalid_argument("ThreadPool: num_threads must be at least 1, got " +
                                std::to_string(num_threads));
  }
  return num_threads;
}

}  // namespace

ThreadPool::ThreadPool(int num_threads)
    : num_threads_(checked_num_threads(num_threads)),
      yield_while_spinning_(more_threads_than_cores(num_threads)),
      errors_(static_cast<std::size_t>(num_threads)),
      claims_(std::make_unique<Claim[]>(static_cast<std::size_t>(num_threads))) {
  workers_.reserve(static_cast<std::size_t>(num_threads_ - 1));
  try {
    for (int k = 1; k < num_threads_; ++k) workers_.emplace_back([this, k] { worker_loop(k); });
  } catch (...) {
    stop_workers();  // the ones already started
    throw;
  }
}

ThreadPool::~ThreadPool() { stop_workers(); }

void ThreadPool::stop_workers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    generation_.fetch_add(1, std::memory_order_seq_cst);
  }
  work_cv_.notify_all();
  for (auto& worker : workers_) worker.join();
  workers_.clear();
}

void ThreadPool::run(std::size_t n, const Task& task) {
  if (n == 0) return;
  if (num_threads_ == 1) {
    task(0, n);
    return;
  }

  // Publish: everything written before the generation bump is visible to a worker that sees it.
  task_ = &task;
  n_ = n;
  unfinished_.store(num_threads_, std::memory_order_relaxed);
  const std::uint64_t generation = generation_.fetch_add(1, std::memory_order_seq_cst) + 1;
  if (sleeping_workers_.load(std::memory_order_seq_cst) > 0) {
    // A worker counted itself before we read the count, under the mutex; taking the mutex here
    // means it is already waiting (or has re-checked and seen the new generation).
    { std::lock_guard<std::mutex> lock(mutex_); }
    work_cv_.notify_all();
  }

  take_chunks(generation, 0);
  wait_for_chunks();
  task_ = nullptr;
  for (auto& error : errors_) {
    if (error) {
      const std::exception_ptr first = error;
      for (auto& slot : errors_) slot = nullptr;
      std::rethrow_exception(first);
    }
  }
}

void ThreadPool::take_chunks(std::uint64_t generation, int self) {
  for (int i = 0; i < num_threads_; ++i) {
    const int k = (self + i) % num_threads_;
    std::atomic<std::uint64_t>& claim = claims_[static_cast<std::size_t>(k)].generation;
    std::uint64_t last = claim.load(std::memory_order_relaxed);
    if (last >= generation ||
        !claim.compare_exchange_strong(last, generation, std::memory_order_acq_rel)) {
      continue;  // taken in this run already, or this thread saw a run that has ended
    }
    const auto [begin, end] = chunk_range(n_, num_threads_, k);
    if (begin < end) {
      try {
        (*task_)(begin, end);
      } catch (...) {
        errors_[static_cast<std::size_t>(k)] = std::current_exception();
      }
    }
    // Release the chunk's writes (results, error slot) to the caller. If this was the last and
    // the caller has gone to sleep, wake it; the sleeper-count argument above applies here too.
    if (unfinished_.fetch_sub(1, std::memory_order_seq_cst) == 1 && self != 0 &&
        caller_sleeping_.load(std::memory_order_seq_cst)) {
      { std::lock_guard<std::mutex> lock(mutex_); }
      done_cv_.notify_one();
    }
  }
}

void ThreadPool::wait_for_chunks() {
  const auto done = [this] { return unfinished_.load(std::memory_order_acquire) == 0; };
  if (spin_until(done, yield_while_spinning_)) return;
  std::unique_lock<std::mutex> lock(mutex_);
  caller_sleeping_.store(true, std::memory_order_seq_cst);
  done_cv_.wait(lock, [this] { return unfinished_.load(std::memory_order_seq_cst) == 0; });
  caller_sleeping_.store(false, std::memory_order_relaxed);
}

std::uint64_t ThreadPool::wait_for_generation(std::uint64_t seen) {
  std::uint64_t current = seen;
  const auto changed = [this, seen, &current] {
    current = generation_.load(std::memory_order_acquire);
    return current != seen;
  };
  if (spin_until(changed, yield_while_spinning_)) return current;
  std::unique_lock<std::mutex> lock(mutex_);
  sleeping_workers_.fetch_add(1, std::memory_order_seq_cst);
  work_cv_.wait(lock, [this, seen, &current] {
    current = generation_.load(std::memory_order_seq_cst);
    return current != seen;
  });
  sleeping_workers_.fetch_sub(1, std::memory_order_relaxed);
  return current;
}

void ThreadPool::worker_loop(int index) {
  std::uint64_t seen = 0;
  for (;;) {
    seen = wait_for_generation(seen);
    if (stop_) return;  // written before the bump we just observed
    take_chunks(seen, index);
  }
}

}  // namespace mnrl::core
