#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace mnrl::nn {

// The threads the hand-written passes (dense_pass.h) and FusedAdam share (`train.threads`), one
// pool per process. They split a gradient step into independent whole pieces, never one product
// into parts: an online and a target network's forward, a layer's weight gradient and its input
// gradient, an actor's trunk and a critic's, ranges of an Adam update. Every piece computes
// exactly what it computes on one thread, so results are bit for bit the same for any number of
// threads (a split product would round differently on some OpenBLAS kernels).
//
// One caller at a time uses the pool; a call made while another thread is using it (A3C's worker
// threads each train their own agent), or from inside a piece, runs its pieces on its own
// thread, with the same results.
// Pieces run under c10::InferenceMode on whichever thread takes them.

// Starts `threads` - 1 workers (the caller is the other), replacing the pool; 1 stops them.
// Call it while no pass is running. threads < 1 throws std::invalid_argument.
void set_compute_threads(int threads);
int compute_threads();

// Runs `first` and `second` at once when the pool has a free thread and the smaller of them is
// worth a hand-off (`multiply_adds` of the smaller at least kWorthASecondThread), else one after
// the other; returns when both have finished (rethrowing the exception of the first that threw).
void run_both(std::int64_t multiply_adds, const std::function<void()>& first,
              const std::function<void()>& second);

// Below this many multiply-adds (a few microseconds) a piece costs less on the calling thread
// than handing it over: with 2 threads A2C CartPole's 40-row, 64-wide layers ran at 0.9x of one
// thread, PPO's 256-row layers (1M multiply-adds) at 1.33x.
constexpr std::int64_t kWorthASecondThread = std::int64_t{1} << 18;

// Calls task(begin, end) over contiguous chunks of [0, n), one per pool thread.
void run_chunks(std::size_t n, const std::function<void(std::size_t, std::size_t)>& task);

}  // namespace mnrl::nn
