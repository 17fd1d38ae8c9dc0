// The gradient synchronizer keeps replicas bitwise equal and catches a rank that diverges.
#include <gtest/gtest.h>

#include <string>

#include <ATen/ops/arange.h>
#include <ATen/ops/zeros.h>

#include "distributed/gradient_synchronizer.h"
#include "test_communicator.h"

namespace mnrl::distributed {
namespace {

TEST(GradientSynchronizerTest, GradientsBecomeTheirMeanInBuckets) {
  Communicator& comm = test_communicator();
  const int n = comm.size();
  at::Tensor parameters = at::zeros({1000});
  at::Tensor gradients = at::arange(1000, at::kFloat).add_(1000.0f * comm.rank());
  GradientSynchronizer synchronizer(comm, parameters, gradients, {400});  // 100 floats a bucket
  EXPECT_EQ(synchronizer.buckets(), 10);
  synchronizer.average_gradients();
  // mean over r of (i + 1000 r) = i + 1000 (n - 1) / 2
  EXPECT_TRUE(gradients.equal(at::arange(1000, at::kFloat).add_(1000.0f * (n - 1) / 2)));
  EXPECT_EQ(GradientSynchronizer(comm, parameters, gradients).buckets(), 1);
  EXPECT_EQ(GradientSynchronizer(comm, parameters, gradients, {4 * 999}).buckets(), 2);
}

TEST(GradientSynchronizerTest, BroadcastMakesEveryReplicaRankZeros) {
  Communicator& comm = test_communicator();
  at::Tensor parameters = at::arange(50, at::kFloat).mul_(static_cast<float>(comm.rank() + 1));
  GradientSynchronizer synchronizer(comm, parameters, at::zeros({50}));
  synchronizer.broadcast_parameters();
  EXPECT_TRUE(parameters.equal(at::arange(50, at::kFloat)));
  synchronizer.check_in_sync();
}

TEST(GradientSynchronizerTest, ADivergedRankIsCaughtOnEveryRank) {
  Communicator& comm = test_communicator();
  if (comm.size() < 2) GTEST_SKIP() << "needs 2 or more ranks (ctest label mpi)";
  at::Tensor parameters = at::arange(100, at::kFloat);
  GradientSynchronizer synchronizer(comm, parameters, at::zeros({100}));
  synchronizer.check_in_sync();
  if (comm.rank() == 1) parameters[17].add_(1e-6f);  // one float, one ulp-sized change
  try {
    synchronizer.check_in_sync();
    FAIL() << "rank " << comm.rank() << " did not see the divergence";
  } catch (const ReplicaDivergenceError& e) {
    EXPECT_EQ(std::string(e.what()),
              "replicas diverged: the parameters on rank(s) 1 differ from rank 0's (checked by "
              "CRC-32C of their bytes)");
  }
}

}  // namespace
}  // namespace mnrl::distributed
