// Tensors and generators in checkpoint streams: the bytes do not depend on the device, and a
// stream holding CUDA generator states (written by a GPU run) loads where there is no GPU.
#include <gtest/gtest.h>

#include <ATen/ops/arange.h>
#include <ATen/ops/zeros.h>

#include "core/state_stream.h"
#include "nn/tensor_state.h"

namespace mnrl::nn {
namespace {

TEST(TensorStateTest, ATensorRoundTripsIntoTheTensorItIsLoadedInto) {
  core::StateWriter out;
  save_tensor(out, at::arange(6, at::kFloat));
  const at::Tensor into = at::zeros({6}, at::kFloat);
  const float* storage = into.data_ptr<float>();
  core::StateReader in(out.bytes(), "state");
  load_tensor(in, into);
  in.expect_end();
  EXPECT_TRUE(into.equal(at::arange(6, at::kFloat)));
  EXPECT_EQ(into.data_ptr<float>(), storage);  // in place: views of it stay views
}

TEST(TensorStateTest, CudaGeneratorStatesLoadWhereThereIsNoGpu) {
  // Two GPUs' states of 16 bytes (seed and offset), as a GPU run writes them.
  core::StateWriter out;
  out.value(2);
  for (int i = 0; i < 2; ++i) {
    out.value(std::int64_t{16});
    const std::vector<std::uint8_t> state(16, static_cast<std::uint8_t>(i + 1));
    out.values(state.data(), state.size());
  }
  core::StateReader in(out.bytes(), "training state");
  EXPECT_NO_THROW(load_cuda_rng(in));
  in.expect_end();

  core::StateWriter none;
  save_cuda_rng(none, /*on_cuda=*/false);
  core::StateReader none_in(none.bytes(), "training state");
  EXPECT_NO_THROW(load_cuda_rng(none_in));
  none_in.expect_end();
}

TEST(TensorStateTest, AnImplausibleCudaGeneratorStateIsRefused) {
  core::StateWriter count;
  count.value(-1);
  core::StateReader count_in(count.bytes(), "training state");
  EXPECT_THROW(load_cuda_rng(count_in), core::StateError);

  core::StateWriter size;
  size.value(1);
  size.value(std::int64_t{1} << 40);  // a terabyte: refused before any allocation
  core::StateReader size_in(size.bytes(), "training state");
  EXPECT_THROW(load_cuda_rng(size_in), core::StateError);
}

}  // namespace
}  // namespace mnrl::nn
