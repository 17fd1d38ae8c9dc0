// Collectives give exact results on every rank. Run under `mpirun -np N` (ctest label mpi)
// with the MPI backend, and as a plain process with the local one.
#include "distributed/communicator.h"

#include <ATen/ops/arange.h>
#include <ATen/ops/full.h>
#include <ATen/ops/zeros.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "distributed/byte_exchange.h"
#include "test_communicator.h"

namespace mnrl::distributed {
namespace {

// Rank r's values: r * 1000 + i, exactly representable in float.
at::Tensor rank_values(int rank, std::int64_t n, at::ScalarType type) {
  return at::arange(n, at::TensorOptions().dtype(type)).add_(rank * 1000);
}

// mnrl starts Open MPI copying through its shared buffers rather than with a system call per
// message (CMA), unless the user chose: MNRL_TEST_EXPECTED_SINGLE_COPY names the user's choice
// where the test's environment makes one.
TEST(CommunicatorTest, OpenMpiCopiesThroughSharedBuffersUnlessTheUserChose) {
  if (test_communicator().size() == 1) GTEST_SKIP() << "needs MPI ranks";
  const char* value = std::getenv("OMPI_MCA_btl_vader_single_copy_mechanism");
  const char* expected = std::getenv("MNRL_TEST_EXPECTED_SINGLE_COPY");
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(std::string(value), expected ? expected : "none");
}

TEST(CommunicatorTest, AllReduceSumMeanMaxAreExactOnEveryRank) {
  Communicator& comm = test_communicator();
  const int n = comm.size();
  for (const auto type : {at::kFloat, at::kDouble, at::kLong}) {
    at::Tensor sum = rank_values(comm.rank(), 1000, type);
    comm.all_reduce(sum, ReduceOp::kSum);
    // sum over r of (r * 1000 + i) = 1000 * n (n - 1) / 2 + n i
    const at::Tensor expected_sum =
        at::arange(1000, at::TensorOptions().dtype(type)).mul_(n).add_(1000 * n * (n - 1) / 2);
    EXPECT_TRUE(sum.equal(expected_sum)) << "type " << type << " on rank " << comm.rank();

    at::Tensor max = rank_values(comm.rank(), 1000, type);
    comm.all_reduce(max, ReduceOp::kMax);
    EXPECT_TRUE(max.equal(rank_values(n - 1, 1000, type)));
  }
  at::Tensor mean = rank_values(comm.rank(), 1000, at::kDouble);
  comm.all_reduce(mean, ReduceOp::kMean);
  EXPECT_TRUE(mean.equal(at::arange(1000, at::kDouble).add_(1000.0 * (n - 1) / 2)));
}

TEST(CommunicatorTest, EveryRankGetsTheSameBits) {
  Communicator& comm = test_communicator();
  // Values whose float sum depends on the order of additions.
  at::Tensor values = at::arange(1 << 16, at::kFloat).mul_(1e-3f).add_(0.1f * comm.rank()).sin_();
  comm.all_reduce(values, ReduceOp::kMean);
  const at::Tensor all = comm.all_gather(values);
  for (int r = 1; r < comm.size(); ++r) EXPECT_TRUE(all[r].equal(all[0])) << "rank " << r;
}

TEST(CommunicatorTest, BroadcastCopiesTheRootsValues) {
  Communicator& comm = test_communicator();
  for (int root = 0; root < comm.size(); ++root) {
    at::Tensor values = rank_values(comm.rank(), 77, at::kFloat);
    comm.broadcast(values, root);
    EXPECT_TRUE(values.equal(rank_values(root, 77, at::kFloat))) << "root " << root;
  }
  at::Tensor values = at::zeros({3});
  EXPECT_THROW(comm.broadcast(values, comm.size()), std::invalid_argument);
}

TEST(CommunicatorTest, AllGatherStacksTheRanksInOrder) {
  Communicator& comm = test_communicator();
  const at::Tensor mine = rank_values(comm.rank(), 6, at::kLong).reshape({2, 3});
  const at::Tensor all = comm.all_gather(mine);
  ASSERT_EQ(all.sizes(), (at::IntArrayRef{comm.size(), 2, 3}));
  for (int r = 0; r < comm.size(); ++r) {
    EXPECT_TRUE(all[r].equal(rank_values(r, 6, at::kLong).reshape({2, 3}))) << "rank " << r;
  }
  comm.barrier();
}

TEST(CommunicatorTest, RanksAreNumberedOnce) {
  Communicator& comm = test_communicator();
  EXPECT_EQ(comm.backend(), std::getenv("OMPI_COMM_WORLD_SIZE") ? "mpi" : "local");
  at::Tensor rank = at::full({1}, static_cast<std::int64_t>(comm.rank()), at::kLong);
  const at::Tensor ranks = comm.all_gather(rank);
  for (int r = 0; r < comm.size(); ++r) EXPECT_EQ(ranks[r].item<std::int64_t>(), r);
  EXPECT_GE(comm.local_rank(), 0);
  EXPECT_LT(comm.local_rank(), comm.size());
}

// Every rank but 0 starts three sends of 1 MB (beyond Open MPI's eager limit, so they can
// complete only as rank 0 receives them) without waiting; rank 0 sees them waiting after a
// barrier, receives them in the order each rank sent them, and every sender's queue drains.
TEST(CommunicatorTest, StartedSendsArriveInOrderWithoutTheSenderWaiting) {
  Communicator& comm = test_communicator();
  constexpr int kTag = 11, kMessages = 3;
  constexpr std::int64_t kFloats = 1 << 18;
  if (comm.size() == 1) {
    EXPECT_THROW(comm.start_send(at::zeros({1}), 0, kTag), CommunicatorError);
    EXPECT_EQ(comm.sends_pending(), 0);
    EXPECT_FALSE(comm.has_message(Communicator::kAnySource, kTag));
    return;
  }
  if (comm.rank() > 0) {
    for (int m = 0; m < kMessages; ++m) {
      comm.start_send(rank_values(comm.rank(), kFloats, at::kFloat).add_(m * 100000), 0, kTag);
    }
    EXPECT_LE(comm.sends_pending(0), kMessages);
    EXPECT_EQ(comm.sends_pending(0), comm.sends_pending());
  }
  comm.barrier();
  if (comm.rank() == 0) {
    std::vector<int> received(static_cast<std::size_t>(comm.size()), 0);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (int source = 1; source < comm.size(); ++source) {
      while (!comm.has_message(source, kTag)) {
        ASSERT_LT(std::chrono::steady_clock::now(), deadline)
            << "no message from rank " << source << " within 60 s";
      }
    }
    EXPECT_FALSE(comm.has_message(Communicator::kAnySource, kTag + 1));
    at::Tensor message = at::zeros({kFloats});
    for (int m = 0; m < kMessages * (comm.size() - 1); ++m) {
      const int source = comm.receive(message, Communicator::kAnySource, kTag);
      const int nth = received[static_cast<std::size_t>(source)]++;
      EXPECT_TRUE(message.equal(rank_values(source, kFloats, at::kFloat).add_(nth * 100000)))
          << "message " << nth << " of rank " << source;
    }
    EXPECT_FALSE(comm.has_message(Communicator::kAnySource, kTag));
  } else {
    comm.wait_for_sends(0);
    EXPECT_EQ(comm.sends_pending(), 0);
  }
  comm.barrier();
}

// A started send stays in flight until the receiver takes it, however small (MPI would deliver
// a small message eagerly and call the send complete): what actors keep in flight bounds what
// waits at their learner.
TEST(CommunicatorTest, SmallStartedSendsStayInFlightUntilReceived) {
  Communicator& comm = test_communicator();
  if (comm.size() == 1) GTEST_SKIP() << "needs 2 ranks or more";
  constexpr int kTag = 12;
  if (comm.rank() > 0) {
    comm.start_send(at::full({4}, static_cast<float>(comm.rank())), 0, kTag);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_EQ(comm.sends_pending(0), 1);
  }
  comm.barrier();
  if (comm.rank() == 0) {
    at::Tensor message = at::zeros({4});
    for (int m = 1; m < comm.size(); ++m) {
      const int source = comm.receive(message, Communicator::kAnySource, kTag);
      EXPECT_TRUE(message.equal(at::full({4}, static_cast<float>(source))));
    }
  } else {
    comm.wait_for_sends(0);
    EXPECT_EQ(comm.sends_pending(), 0);
  }
  comm.barrier();
}

// Bytes point to point (an actor's state, a learner's checkpoint files): every rank but 0
// sends rank 0 a string whose length is not a multiple of 8 words, which arrives whole, then
// one longer than rank 0 takes, which is refused naming the sender and the lengths.
TEST(CommunicatorTest, BytesArriveWholeAndOversizedOnesAreRefused) {
  Communicator& comm = test_communicator();
  if (comm.size() == 1) GTEST_SKIP() << "needs 2 ranks or more";
  constexpr int kTag = 13;
  const auto bytes_of = [](int rank) { return std::string(1000 + 3 * rank, 'a' + rank % 26); };
  if (comm.rank() > 0) {
    send_bytes(comm, bytes_of(comm.rank()), 0, kTag);
    send_bytes(comm, std::string(101, 'x'), 0, kTag);
  } else {
    for (int source = 1; source < comm.size(); ++source) {
      EXPECT_EQ(receive_bytes(comm, source, kTag, 2000, "a test string"), bytes_of(source));
      try {
        receive_bytes(comm, source, kTag, 100, "a test string");
        ADD_FAILURE() << "101 bytes taken where at most 100 were";
      } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("a test string from rank " + std::to_string(source) +
                                             ": 101 bytes, expected at most 100"),
                  std::string::npos)
            << e.what();
      }
      // The refused bytes (13 words) are still on their way: take them, so that the sender
      // completes.
      at::Tensor words = at::zeros({13}, at::kLong);
      comm.receive(words, source, kTag);
    }
  }
  comm.barrier();
}

// Sub-communicators (IMPALA's and Ape-X's learners): the ranks of one color reduce among
// themselves, ranked in their order here; a rank without a color gets none.
TEST(CommunicatorTest, SplitRanksReduceAmongThemselves) {
  Communicator& comm = test_communicator();
  // Ranks 0, 2, 4, ... and 1, 3, 5, ...; with 4 ranks or more the last one stays out.
  const bool out = comm.size() >= 4 && comm.rank() == comm.size() - 1;
  const auto group = comm.split(out ? -1 : comm.rank() % 2);
  if (out) {
    EXPECT_EQ(group, nullptr);
  } else {
    ASSERT_NE(group, nullptr);
    const int members = comm.size() >= 4 ? comm.size() - 1 : comm.size();
    EXPECT_EQ(group->size(), (members - comm.rank() % 2 + 1) / 2);
    EXPECT_EQ(group->rank(), comm.rank() / 2);
    at::Tensor sum = at::full({3}, static_cast<double>(comm.rank()), at::kDouble);
    group->all_reduce(sum, ReduceOp::kSum);
    double expected = 0;
    for (int r = comm.rank() % 2; r < members; r += 2) expected += r;
    EXPECT_TRUE(sum.equal(at::full({3}, expected, at::kDouble))) << sum;
  }
  comm.barrier();
}

TEST(CommunicatorTest, UnknownBackendIsRefused) {
  try {
    make_communicator("nccl2");
    FAIL() << "expected a refusal";
  } catch (const CommunicatorError& e) {
    EXPECT_EQ(std::string(e.what()),
              "unknown distributed.backend 'nccl2' (expected auto, hierarchical, local, mpi or "
              "nccl)");
  }
}

TEST(CommunicatorTest, LocalBackendIsRefusedInAJobOfSeveralRanks) {
  // Each rank would otherwise train alone and write a run of its own.
  if (test_communicator().size() == 1) {
    EXPECT_EQ(make_communicator("local")->size(), 1);
    return;
  }
  try {
    make_communicator("local");
    FAIL() << "expected a refusal";
  } catch (const CommunicatorError& e) {
    EXPECT_NE(std::string(e.what()).find("mpirun started " +
                                         std::to_string(test_communicator().size()) + " ranks"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace mnrl::distributed
