#pragma once

#include <cstdint>

namespace mnrl::nn {

// c = a' b' + beta c over row-major float matrices, where a' is a [m, k] (row stride lda) or, with
// a_transposed, the transpose of a [k, m]; b' likewise [k, n]; c is [m, n] (row stride ldc).
//
// It calls the BLAS sgemm that LibTorch itself calls, with the arguments at::addmm_out and
// at::mm_out pass for such matrices, so the results are theirs bit for bit (tested), without
// their cost per call: 6-12 us of dispatch and bias broadcasting on top of a 78 us 64x256x256
// product, on 11 products of every DQN step. Where no sgemm_ symbol is loaded (a LibTorch that
// keeps its BLAS to itself), and for products with a dimension of 1, it goes through
// at::mm_out / addmm_.
void row_major_gemm(bool a_transposed, bool b_transposed, std::int64_t m, std::int64_t n,
                    std::int64_t k, const float* a, std::int64_t lda, const float* b,
                    std::int64_t ldb, float beta, float* c, std::int64_t ldc);

// The same product for a few rows of c (any number works): one matrix-vector product (BLAS
// sgemv) per row, which reads b without first packing it as sgemm does. Up to 3 rows it runs
// 2-3x faster than row_major_gemm on [1-3, 64-128] x [64-128, 256-512] (the recurrent step
// products of nn/recurrent_core_pass.h); its rounding is not LibTorch's.
void few_rows_gemm(bool b_transposed, std::int64_t m, std::int64_t n, std::int64_t k,
                   const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta,
                   float* c, std::int64_t ldc);
// Where few_rows_gemm is the faster.
constexpr std::int64_t kFewRows = 3;

// The multiply-adds (m * n * k) of every row_major_gemm product so far in this process, all
// threads together: the work of the hand-written passes, which `mnrl bench` divides by the time
// of a learner's updates. Counting costs one relaxed atomic add per product.
std::int64_t row_major_gemm_multiply_adds();

// The same through at::mm_out / addmm_ (what row_major_gemm does without an sgemm_ symbol).
void row_major_gemm_through_libtorch(bool a_transposed, bool b_transposed, std::int64_t m,
                                     std::int64_t n, std::int64_t k, const float* a,
                                     std::int64_t lda, const float* b, std::int64_t ldb,
                                     float beta, float* c, std::int64_t ldc);

}  // namespace mnrl::nn
