#include "nn/compute_threads.h"

#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include <c10/core/InferenceMode.h>

#include "core/thread_pool.h"

namespace mnrl::nn {
namespace {

std::unique_ptr<core::ThreadPool> pool;  // none with one thread
int pool_threads = 1;
std::mutex pool_in_use;  // held by the one caller whose pieces the pool is running
// Set on a thread while it runs a piece: a call from inside a piece (a trunk's backward inside
// an actor's) runs inline rather than re-entering the pool or locking pool_in_use again.
thread_local bool running_a_piece = false;

class RunningAPiece {
 public:
  RunningAPiece() : outer_(running_a_piece) { running_a_piece = true; }
  ~RunningAPiece() { running_a_piece = outer_; }
  RunningAPiece(const RunningAPiece&) = delete;
  RunningAPiece& operator=(const RunningAPiece&) = delete;

 private:
  bool outer_;
};

}  // namespace

void set_compute_threads(int threads) {
  if (threads < 1) {
    throw std::invalid_argument("compute threads must be >= 1, got " + std::to_string(threads));
  }
  std::lock_guard<std::mutex> lock(pool_in_use);
  pool.reset();
  if (threads > 1) pool = std::make_unique<core::ThreadPool>(threads);
  pool_threads = threads;
}

int compute_threads() { return pool_threads; }

void run_chunks(std::size_t n, const std::function<void(std::size_t, std::size_t)>& task) {
  if (running_a_piece || !pool) {
    task(0, n);
    return;
  }
  std::unique_lock<std::mutex> lock(pool_in_use, std::try_to_lock);
  if (!lock.owns_lock()) {
    task(0, n);
    return;
  }
  pool->run(n, [&task](std::size_t begin, std::size_t end) {
    c10::InferenceMode inference;
    RunningAPiece piece;
    task(begin, end);
  });
}

void run_both(std::int64_t multiply_adds, const std::function<void()>& first,
              const std::function<void()>& second) {
  if (multiply_adds < kWorthASecondThread) {
    first();
    second();
    return;
  }
  run_chunks(2, [&](std::size_t begin, std::size_t end) {
    for (std::size_t piece = begin; piece < end; ++piece) (piece == 0 ? first : second)();
  });
}

}  // namespace mnrl::nn
