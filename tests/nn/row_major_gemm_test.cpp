#include "nn/row_major_gemm.h"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include <ATen/ops/addmm.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/randn.h>
#include <torch/utils.h>

namespace mnrl::nn {
namespace {

// (batch rows, layer inputs, layer outputs)
using GemmShape = std::tuple<std::int64_t, std::int64_t, std::int64_t>;

class RowMajorGemmTest : public ::testing::TestWithParam<GemmShape> {};

float* floats(const at::Tensor& t) { return t.data_ptr<float>(); }

// A dense layer's three products, as row_major_gemm (or its LibTorch fallback) computes them
// for nn/dense_pass.cpp, against the LibTorch ops they replace: the same bits.
void expect_libtorchs_bits(decltype(&row_major_gemm) gemm, const GemmShape& shape) {
  const auto [rows, in, out] = shape;
  torch::manual_seed(rows * 1000 + in * 10 + out);
  const at::Tensor input = at::randn({rows, in}), weight = at::randn({out, in});
  const at::Tensor bias = at::randn({out}), output_gradient = at::randn({rows, out});

  // Forward: bias rows, then input weight^T added.
  const at::Tensor expected_output = at::addmm(bias, input, weight.t());
  const at::Tensor output = bias.expand({rows, out}).contiguous();
  gemm(false, true, rows, out, in, floats(input), in, floats(weight), in, 1.0f, floats(output),
       out);
  EXPECT_TRUE(at::equal(output, expected_output)) << "forward";

  // Weight gradient: output_gradient^T input.
  const at::Tensor expected_weight_gradient = at::mm(output_gradient.t(), input);
  const at::Tensor weight_gradient = at::randn({out, in});  // overwritten
  gemm(true, false, out, in, rows, floats(output_gradient), out, floats(input), in, 0.0f,
       floats(weight_gradient), in);
  EXPECT_TRUE(at::equal(weight_gradient, expected_weight_gradient)) << "weight gradient";

  // Input gradient: output_gradient weight, written and accumulated.
  const at::Tensor expected_input_gradient = at::mm(output_gradient, weight);
  const at::Tensor input_gradient = at::randn({rows, in});
  gemm(false, false, rows, in, out, floats(output_gradient), out, floats(weight), in, 0.0f,
       floats(input_gradient), in);
  EXPECT_TRUE(at::equal(input_gradient, expected_input_gradient)) << "input gradient";
  const at::Tensor start = at::randn({rows, in});
  const at::Tensor expected_sum = start.clone().addmm_(output_gradient, weight);
  gemm(false, false, rows, in, out, floats(output_gradient), out, floats(weight), in, 1.0f,
       floats(start), in);
  EXPECT_TRUE(at::equal(start, expected_sum)) << "accumulated input gradient";
}

TEST_P(RowMajorGemmTest, ComputesLibTorchsBits) { expect_libtorchs_bits(&row_major_gemm, GetParam()); }

TEST_P(RowMajorGemmTest, ItsLibTorchFallbackComputesTheSameBits) {
  expect_libtorchs_bits(&row_major_gemm_through_libtorch, GetParam());
}

// `mnrl bench` divides the counted multiply-adds by the time of a learner's updates: every
// product counts m * n * k, whether sgemm or LibTorch (a dimension of 1) computes it.
TEST(RowMajorGemmCountTest, CountsEveryProductsMultiplyAdds) {
  std::vector<float> a(7 * 5, 1.0f), b(5 * 3, 2.0f), c(7 * 3, 0.0f);
  const std::int64_t before = row_major_gemm_multiply_adds();
  row_major_gemm(false, false, 7, 3, 5, a.data(), 5, b.data(), 3, 0.0f, c.data(), 3);
  EXPECT_EQ(row_major_gemm_multiply_adds() - before, 7 * 3 * 5);
  EXPECT_EQ(c[0], 10.0f);
  row_major_gemm(false, false, 7, 1, 5, a.data(), 5, b.data(), 1, 0.0f, c.data(), 1);
  EXPECT_EQ(row_major_gemm_multiply_adds() - before, 7 * 3 * 5 + 7 * 1 * 5);
}

INSTANTIATE_TEST_SUITE_P(Shapes, RowMajorGemmTest,
                         ::testing::Values(GemmShape{2, 1, 1}, GemmShape{7, 3, 5}, GemmShape{64, 4, 256},
                                           GemmShape{64, 256, 256}, GemmShape{64, 256, 2},
                                           GemmShape{256, 64, 1}, GemmShape{33, 17, 64},
                                           GemmShape{2048, 64, 64}, GemmShape{40, 1, 64},
                                           GemmShape{8, 64, 3}));

}  // namespace
}  // namespace mnrl::nn
