// train.precision's pieces that hold on any machine: the names, where each mode is refused, and
// Bf16Autocast's scope (what it computes in bfloat16 needs a GPU: gpu_training_tests).
#include "nn/precision.h"

#include <ATen/Context.h>
#include <ATen/autocast_mode.h>
#include <ATen/ops/randn.h>
#include <gtest/gtest.h>
#include <torch/nn/modules/linear.h>
#include <torch/version.h>

#include <stdexcept>

namespace mnrl::nn {
namespace {

bool cuda_autocast_on() {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  return at::autocast::is_autocast_enabled(at::kCUDA);
#else
  return at::autocast::is_enabled();
#endif
}

TEST(PrecisionTest, NamesAndTheCpuRefusingTensorCoreModes) {
  EXPECT_EQ(precision_named("fp32"), Precision::fp32);
  EXPECT_EQ(precision_named("tf32"), Precision::tf32);
  EXPECT_EQ(precision_named("bf16"), Precision::bf16);
  EXPECT_THROW(precision_named("fp16"), std::invalid_argument);
  EXPECT_EQ(why_precision_unsupported(Precision::fp32, at::Device("cpu")), "");
  EXPECT_EQ(why_precision_unsupported(Precision::bf16, at::Device("cpu")),
            "the CPU has no tensor cores");
  EXPECT_EQ(why_precision_unsupported(Precision::tf32, at::Device("cpu")),
            "the CPU has no tensor cores");
}

TEST(PrecisionTest, Tf32SetsMatmulsAndConvolutions) {
  set_tf32(true);
  EXPECT_EQ(at::globalContext().float32MatmulPrecision(), at::Float32MatmulPrecision::HIGH);
  EXPECT_TRUE(at::globalContext().allowTF32CuDNN());
  set_tf32(false);
  EXPECT_EQ(at::globalContext().float32MatmulPrecision(), at::Float32MatmulPrecision::HIGHEST);
  EXPECT_FALSE(at::globalContext().allowTF32CuDNN());
}

// CUDA autocast in bf16 without its weight cache inside the scope, the thread's earlier state
// after it (nested scopes included); CPU work stays float32 inside.
TEST(PrecisionTest, Bf16AutocastHoldsForItsScopeAndLeavesTheCpuInFloat32) {
  ASSERT_FALSE(cuda_autocast_on());
  const bool caching = at::autocast::is_autocast_cache_enabled();
  torch::nn::Linear layer(4, 3);
  {
    const Bf16Autocast outer(true);
    EXPECT_TRUE(cuda_autocast_on());
    EXPECT_FALSE(at::autocast::is_autocast_cache_enabled());
    EXPECT_EQ(layer->forward(at::randn({2, 4})).scalar_type(), at::kFloat);
    {
      const Bf16Autocast inner(true);
      const Bf16Autocast off(false);  // nothing: not a scope that turns autocast off
      EXPECT_TRUE(cuda_autocast_on());
    }
    EXPECT_TRUE(cuda_autocast_on());
  }
  EXPECT_FALSE(cuda_autocast_on());
  EXPECT_EQ(at::autocast::is_autocast_cache_enabled(), caching);
}

}  // namespace
}  // namespace mnrl::nn
