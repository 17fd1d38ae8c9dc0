// The NCCL and hierarchical communicators. They need CUDA LibTorch and a GPU per rank: where
// those are missing, the tests check that the backend refuses with a message saying why, then
// skip, saying so. bench/gpu/run.sh runs them on a GPU machine.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <ATen/Context.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/full.h>

#include "distributed/communicator.h"
#include "distributed/gradient_synchronizer.h"

namespace mnrl::distributed {
namespace {

// The backend, or null (with the test skipped) where this machine cannot run it.
std::unique_ptr<Communicator> make_or_skip(const std::string& backend) {
  try {
    return make_communicator(backend);
  } catch (const CommunicatorError& e) {
    const std::string message = e.what();
    // Refusing is right only for a reason the machine gives.
    EXPECT_TRUE(message.find("no CUDA") != std::string::npos ||
                message.find("no GPU") != std::string::npos ||
                message.find("built without NCCL") != std::string::npos ||
                message.find("mpirun") != std::string::npos ||
                message.find("one rank per GPU") != std::string::npos)
        << message;
    EXPECT_NE(message.find(backend), std::string::npos) << message;
    return nullptr;
  }
}

class GpuBackendTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuBackendTest, CollectivesOnCudaTensorsAreExact) {
  const auto communicator = make_or_skip(GetParam());
  if (!communicator) GTEST_SKIP() << GetParam() << " cannot run here (no GPU, or no CUDA LibTorch)";
  const int rank = communicator->rank(), size = communicator->size();
  const auto cuda = at::TensorOptions().device(at::kCUDA);

  at::Tensor sum = at::arange(1000, cuda.dtype(at::kFloat)).add_(rank);
  communicator->all_reduce(sum, ReduceOp::kSum);
  const at::Tensor expected_sum =
      at::arange(1000, cuda.dtype(at::kFloat)).mul_(size).add_(size * (size - 1) / 2);
  EXPECT_TRUE(sum.equal(expected_sum));

  at::Tensor mean = at::full({64}, static_cast<double>(rank), cuda.dtype(at::kDouble));
  communicator->all_reduce(mean, ReduceOp::kMean);
  EXPECT_TRUE(mean.equal(at::full({64}, (size - 1) / 2.0, cuda.dtype(at::kDouble))));

  at::Tensor max = at::full({8}, static_cast<std::int64_t>(rank), cuda.dtype(at::kLong));
  communicator->all_reduce(max, ReduceOp::kMax);
  EXPECT_TRUE(max.equal(at::full({8}, static_cast<std::int64_t>(size - 1), cuda.dtype(at::kLong))));

  at::Tensor broadcast = at::full({16}, static_cast<float>(rank + 7), cuda.dtype(at::kFloat));
  communicator->broadcast(broadcast, 0);
  EXPECT_TRUE(broadcast.equal(at::full({16}, 7.0f, cuda.dtype(at::kFloat))));

  const at::Tensor gathered =
      communicator->all_gather(at::full({3}, static_cast<float>(rank), cuda.dtype(at::kFloat)));
  for (int r = 0; r < size; ++r) {
    EXPECT_TRUE(gathered[r].equal(at::full({3}, static_cast<float>(r), cuda.dtype(at::kFloat))));
  }
}

// Data-parallel training on GPUs: gradients averaged in buckets on the device, parameters
// broadcast and checked, and the training loop's host tensors (flags, metrics) carried too.
TEST_P(GpuBackendTest, AveragesCudaGradientsAndCarriesHostTensors) {
  const auto communicator = make_or_skip(GetParam());
  if (!communicator) GTEST_SKIP() << GetParam() << " cannot run here (no GPU, or no CUDA LibTorch)";
  const int rank = communicator->rank(), size = communicator->size();
  const auto cuda = at::TensorOptions().device(at::kCUDA).dtype(at::kFloat);
  at::Tensor parameters = at::full({1000}, static_cast<float>(rank + 1), cuda);
  at::Tensor gradients = at::arange(1000, cuda).add_(rank);
  GradientSynchronizerOptions options;
  options.bucket_bytes = 1024;  // 4 buckets, the last one short
  GradientSynchronizer synchronizer(*communicator, parameters, gradients, options);
  synchronizer.average_gradients();
  EXPECT_TRUE(gradients.equal(at::arange(1000, cuda).add_((size - 1) / 2.0)));
  synchronizer.broadcast_parameters();
  EXPECT_TRUE(parameters.equal(at::full({1000}, 1.0f, cuda)));
  EXPECT_NO_THROW(synchronizer.check_in_sync());

  at::Tensor host = at::full({4}, static_cast<std::int64_t>(rank), at::kLong);
  communicator->all_reduce(host, ReduceOp::kSum);
  EXPECT_TRUE(host.equal(at::full({4}, static_cast<std::int64_t>(size * (size - 1) / 2), at::kLong)));
  const at::Tensor gathered = communicator->all_gather(at::full({2}, rank + 0.5, at::kDouble));
  EXPECT_TRUE(gathered.is_cpu());
  EXPECT_EQ(gathered[size - 1][0].item<double>(), size - 0.5);
}

INSTANTIATE_TEST_SUITE_P(Backends, GpuBackendTest, ::testing::Values("nccl", "hierarchical"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace mnrl::distributed
