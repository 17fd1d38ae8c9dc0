#include "core/thread_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace mnrl::core {
namespace {

using Range = std::pair<std::size_t, std::size_t>;

// Thread counts that exercise both the spinning path (at most as many threads as cores) and the
// blocking path (more threads than cores, where the pool does not spin) on any machine.
const std::vector<int> kThreadCounts{1, 2, 3, 4, 8};

// The documented split, written out independently of ThreadPool::chunk_range.
std::vector<Range> expected_split(std::size_t n, int num_threads) {
  std::vector<Range> ranges;
  std::size_t begin = 0;
  for (int k = 0; k < num_threads; ++k) {
    const std::size_t size = n / num_threads + (static_cast<std::size_t>(k) < n % num_threads);
    ranges.emplace_back(begin, begin + size);
    begin += size;
  }
  return ranges;
}

// Runs the pool once and returns the (begin, end) of every call, sorted.
std::vector<Range> record_calls(ThreadPool& pool, std::size_t n) {
  std::mutex mutex;
  std::vector<Range> calls;
  pool.run(n, [&](std::size_t begin, std::size_t end) {
    std::lock_guard<std::mutex> lock(mutex);
    calls.emplace_back(begin, end);
  });
  std::sort(calls.begin(), calls.end());
  return calls;
}

TEST(ThreadPoolTest, RejectsFewerThanOneThread) {
  EXPECT_THROW(ThreadPool(0), std::invalid_argument);
  EXPECT_THROW(ThreadPool(-3), std::invalid_argument);
}

TEST(ThreadPoolTest, ReportsItsThreadCount) {
  for (const int t : kThreadCounts) EXPECT_EQ(ThreadPool(t).num_threads(), t);
}

TEST(ThreadPoolTest, ChunkRangeFollowsTheDocumentedSplit) {
  // 10 in 4 parts: the first 10 % 4 = 2 chunks get one more.
  EXPECT_EQ(ThreadPool::chunk_range(10, 4, 0), Range(0, 3));
  EXPECT_EQ(ThreadPool::chunk_range(10, 4, 1), Range(3, 6));
  EXPECT_EQ(ThreadPool::chunk_range(10, 4, 2), Range(6, 8));
  EXPECT_EQ(ThreadPool::chunk_range(10, 4, 3), Range(8, 10));
  for (const int t : kThreadCounts) {
    for (std::size_t n = 0; n < 50; ++n) {
      const auto expected = expected_split(n, t);
      for (int k = 0; k < t; ++k) EXPECT_EQ(ThreadPool::chunk_range(n, t, k), expected[k]);
    }
  }
}

TEST(ThreadPoolTest, ChunksCoverTheRangeExactlyOnceWithTheDocumentedSplit) {
  for (const int t : kThreadCounts) {
    ThreadPool pool(t);
    for (const std::size_t n : {1, 2, 5, 7, 8, 9, 16, 63, 64, 65, 1000, 1001}) {
      SCOPED_TRACE("threads " + std::to_string(t) + ", n " + std::to_string(n));
      std::vector<Range> expected;
      for (const auto& range : expected_split(n, t)) {
        if (range.first < range.second) expected.push_back(range);
      }
      EXPECT_EQ(record_calls(pool, n), expected);

      std::vector<std::atomic<int>> hits(n);
      pool.run(n, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) hits[i].fetch_add(1);
      });
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "index " << i;
    }
  }
}

TEST(ThreadPoolTest, FewerItemsThanThreadsCallsOnlyNonEmptyChunks) {
  ThreadPool pool(4);
  EXPECT_EQ(record_calls(pool, 1), (std::vector<Range>{{0, 1}}));
  EXPECT_EQ(record_calls(pool, 2), (std::vector<Range>{{0, 1}, {1, 2}}));
  EXPECT_EQ(record_calls(pool, 3), (std::vector<Range>{{0, 1}, {1, 2}, {2, 3}}));
}

TEST(ThreadPoolTest, EmptyRangeCallsNothing) {
  for (const int t : kThreadCounts) {
    ThreadPool pool(t);
    EXPECT_TRUE(record_calls(pool, 0).empty());
    EXPECT_EQ(record_calls(pool, 1).size(), 1u);  // still usable afterwards
  }
}

TEST(ThreadPoolTest, OneThreadRunsInlineOnTheCaller) {
  ThreadPool pool(1);
  std::thread::id ran_on;
  Range range;
  pool.run(17, [&](std::size_t begin, std::size_t end) {
    ran_on = std::this_thread::get_id();
    range = {begin, end};
  });
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  EXPECT_EQ(range, Range(0, 17));
}

// A chunk runs on its own thread or, when that thread has not started it in time, on another
// thread of the pool that was free: never on a thread outside the pool, never twice.
TEST(ThreadPoolTest, ChunksRunOnlyOnThePoolsThreads) {
  for (const int t : {2, 4, 8}) {
    ThreadPool pool(t);
    std::set<std::thread::id> threads;
    for (int run = 0; run < 300; ++run) {
      // Vary n, including n < t.
      const std::size_t n = 1 + static_cast<std::size_t>(run * 7) % 40;
      std::vector<std::thread::id> owner(t);  // each slot written by one chunk only
      std::vector<std::atomic<int>> runs(t);
      pool.run(n, [&](std::size_t begin, std::size_t end) {
        int k = 0;
        while (ThreadPool::chunk_range(n, t, k) != Range(begin, end)) ++k;
        owner[k] = std::this_thread::get_id();
        runs[k].fetch_add(1);
      });
      for (int k = 0; k < t; ++k) {
        const auto [begin, end] = ThreadPool::chunk_range(n, t, k);
        const bool empty = begin == end;
        ASSERT_EQ(runs[k].load(), empty ? 0 : 1) << "threads " << t << ", run " << run;
        if (!empty) threads.insert(owner[k]);
      }
    }
    EXPECT_LE(threads.size(), static_cast<std::size_t>(t)) << "threads " << t;
    EXPECT_EQ(threads.count(std::this_thread::get_id()), 1u) << "the caller takes part";
  }
}

TEST(ThreadPoolTest, RethrowsTheExceptionOfAThrowingChunkAfterAllChunksFinish) {
  for (const int t : {2, 4, 8}) {
    ThreadPool pool(t);
    const std::size_t n = 4 * static_cast<std::size_t>(t);
    const int thrower = t - 1;
    std::vector<std::atomic<int>> done(n);
    try {
      pool.run(n, [&](std::size_t begin, std::size_t end) {
        if (ThreadPool::chunk_range(n, t, thrower).first == begin) {
          throw std::runtime_error("chunk " + std::to_string(thrower));
        }
        // Slow enough that the throw surely happens first: run() must still wait for us.
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        for (std::size_t i = begin; i < end; ++i) done[i].store(1);
      });
      ADD_FAILURE() << "run() did not throw";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "chunk " + std::to_string(thrower));
    }
    const auto [throw_begin, throw_end] = ThreadPool::chunk_range(n, t, thrower);
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_EQ(done[i].load(), (i >= throw_begin && i < throw_end) ? 0 : 1) << "index " << i;
    }
    // Still usable, and the old exception is gone.
    std::vector<std::atomic<int>> hits(n);
    pool.run(n, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) hits[i].fetch_add(1);
    });
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(hits[i].load(), 1);
  }
}

TEST(ThreadPoolTest, RethrowsTheLowestThrowingChunkWhenSeveralThrow) {
  const int t = 4;
  ThreadPool pool(t);
  const std::size_t n = 8;
  // Which chunks throw, and the chunk whose exception must come out.
  const std::vector<std::pair<std::vector<int>, int>> cases{
      {{1, 3}, 1}, {{3, 2}, 2}, {{0, 2, 3}, 0}, {{0, 1, 2, 3}, 0}, {{3}, 3}};
  for (const auto& [throwers, lowest] : cases) {
    std::vector<std::atomic<int>> finished(t);
    try {
      pool.run(n, [&](std::size_t begin, std::size_t end) {
        const int k = static_cast<int>(begin / 2);
        // Higher chunks throw first, so "lowest" does not mean "first in time".
        std::this_thread::sleep_for(std::chrono::milliseconds(1 * (t - k)));
        finished[k].store(1);
        if (std::find(throwers.begin(), throwers.end(), k) != throwers.end()) {
          throw std::runtime_error("chunk " + std::to_string(k));
        }
      });
      ADD_FAILURE() << "run() did not throw";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "chunk " + std::to_string(lowest));
    }
    for (int k = 0; k < t; ++k) EXPECT_EQ(finished[k].load(), 1) << "chunk " << k;
  }
  // A clean run after all that does not rethrow anything.
  EXPECT_NO_THROW(pool.run(n, [](std::size_t, std::size_t) {}));
}

TEST(ThreadPoolTest, ExceptionsOfOtherTypesPassThrough) {
  ThreadPool pool(3);
  EXPECT_THROW(pool.run(3,
                        [](std::size_t begin, std::size_t) {
                          if (begin == 2) throw 42;
                        }),
               int);
  ThreadPool single(1);
  EXPECT_THROW(single.run(1, [](std::size_t, std::size_t) { throw std::logic_error("x"); }),
               std::logic_error);
}

// Many runs with varying n, each index accumulated by plain (non-atomic) writes: run() must
// order every chunk's writes before its return, and no index may be touched twice.
TEST(ThreadPoolTest, StressManyRunsWithVaryingSizes) {
  constexpr std::size_t kMaxN = 97;
  constexpr int kRuns = 5000;
  for (const int t : kThreadCounts) {
    ThreadPool pool(t);
    std::vector<std::uint64_t> sums(kMaxN, 0);
    std::vector<std::uint64_t> counts(kMaxN, 0);
    std::vector<std::uint64_t> expected_sums(kMaxN, 0);
    std::vector<std::uint64_t> expected_counts(kMaxN, 0);
    std::uint64_t state = 12345;
    for (int run = 0; run < kRuns; ++run) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      const std::size_t n = static_cast<std::size_t>(state >> 33) % (kMaxN + 1);
      const std::uint64_t value = static_cast<std::uint64_t>(run) + 1;
      pool.run(n, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          sums[i] += value * (i + 1);
          counts[i] += 1;
        }
      });
      for (std::size_t i = 0; i < n; ++i) {
        expected_sums[i] += value * (i + 1);
        expected_counts[i] += 1;
      }
      // The caller reads what the workers just wrote.
      if (n > 0) {
        ASSERT_EQ(counts[n - 1], expected_counts[n - 1]) << "run " << run;
      }
    }
    EXPECT_EQ(counts, expected_counts) << "threads " << t;
    EXPECT_EQ(sums, expected_sums) << "threads " << t;
  }
}

// Pauses longer than any spin between runs, and chunks slower than the caller's, so workers
// and caller go through the blocking path as well.
TEST(ThreadPoolTest, WorksAcrossIdlePausesAndSlowWorkers) {
  for (const int t : {2, 4}) {
    ThreadPool pool(t);
    std::vector<int> counts(16, 0);
    for (int run = 0; run < 40; ++run) {
      if (run % 2 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      pool.run(counts.size(), [&](std::size_t begin, std::size_t end) {
        if (begin != 0 && run % 3 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        for (std::size_t i = begin; i < end; ++i) ++counts[i];
      });
    }
    EXPECT_EQ(counts, std::vector<int>(16, 40));
  }
}

TEST(ThreadPoolTest, ConstructsAndDestroysRepeatedly) {
  for (int round = 0; round < 200; ++round) {
    const int t = 1 + round % 8;
    { ThreadPool idle(t); }  // never ran: the workers must still shut down
    ThreadPool pool(t);
    std::atomic<int> total{0};
    const int runs = round % 4;
    for (int run = 0; run < runs; ++run) {
      pool.run(static_cast<std::size_t>(round % 13), [&](std::size_t begin, std::size_t end) {
        total.fetch_add(static_cast<int>(end - begin));
      });
    }
    EXPECT_EQ(total.load(), runs * (round % 13));
  }
  // Destroyed right after a run, while workers may still be spinning.
  for (int round = 0; round < 200; ++round) {
    auto pool = std::make_unique<ThreadPool>(1 + round % 4);
    pool->run(4, [](std::size_t, std::size_t) {});
    pool.reset();
  }
}

}  // namespace
}  // namespace mnrl::core
