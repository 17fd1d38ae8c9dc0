#include "nn/row_major_gemm.h"

#include <dlfcn.h>

#include <atomic>

#include <ATen/ops/from_blob.h>
#include <ATen/ops/mm.h>

namespace mnrl::nn {
namespace {

// The Fortran BLAS interface (column-major).
using Sgemm = void(const char* transa, const char* transb, const int* m, const int* n,
                   const int* k, const float* alpha, const float* a, const int* lda,
                   const float* b, const int* ldb, const float* beta, float* c, const int* ldc);

using Sgemv = void(const char* trans, const int* m, const int* n, const float* alpha,
                   const float* a, const int* lda, const float* x, const int* incx,
                   const float* beta, float* y, const int* incy);

std::atomic<std::int64_t> multiply_adds_done{0};

Sgemm* loaded_sgemm() {
  static Sgemm* const sgemm = reinterpret_cast<Sgemm*>(dlsym(RTLD_DEFAULT, "sgemm_"));
  return sgemm;
}

Sgemv* loaded_sgemv() {
  static Sgemv* const sgemv = reinterpret_cast<Sgemv*>(dlsym(RTLD_DEFAULT, "sgemv_"));
  return sgemv;
}

// The [rows, columns] row-major matrix at `data` (row stride ld), or the transpose of the
// [columns, rows] one.
at::Tensor matrix(const float* data, std::int64_t rows, std::int64_t columns, std::int64_t ld,
                  bool transposed) {
  auto* p = const_cast<float*>(data);  // only read
  return transposed ? at::from_blob(p, {columns, rows}, {ld, 1}).t()
                    : at::from_blob(p, {rows, columns}, {ld, 1});
}

}  // namespace

void row_major_gemm(bool a_transposed, bool b_transposed, std::int64_t m, std::int64_t n,
                    std::int64_t k, const float* a, std::int64_t lda, const float* b,
                    std::int64_t ldb, float beta, float* c, std::int64_t ldc) {
  // With a dimension of 1, LibTorch's choice between 'N' and 'T' follows strides that do not
  // matter for such a matrix, and some kernels (SkylakeX) round the two differently: those
  // small products go through LibTorch itself.
  multiply_adds_done.fetch_add(m * n * k, std::memory_order_relaxed);
  Sgemm* sgemm = loaded_sgemm();
  if (sgemm && m > 1 && n > 1 && k > 1) {
    // Row-major c is column-major c^T = b'^T a'^T: b' first, as LibTorch orders them.
    const char op_b = b_transposed ? 'T' : 'N', op_a = a_transposed ? 'T' : 'N';
    const int cm = static_cast<int>(n), cn = static_cast<int>(m), ck = static_cast<int>(k);
    const int ib = static_cast<int>(ldb), ia = static_cast<int>(lda), ic = static_cast<int>(ldc);
    const float one = 1.0f;
    sgemm(&op_b, &op_a, &cm, &cn, &ck, &one, b, &ib, a, &ia, &beta, c, &ic);
    return;
  }
  row_major_gemm_through_libtorch(a_transposed, b_transposed, m, n, k, a, lda, b, ldb, beta, c,
                                  ldc);
}

void few_rows_gemm(bool b_transposed, std::int64_t m, std::int64_t n, std::int64_t k,
                   const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta,
                   float* c, std::int64_t ldc) {
  Sgemv* sgemv = loaded_sgemv();
  if (!sgemv) {
    row_major_gemm(false, b_transposed, m, n, k, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  multiply_adds_done.fetch_add(m * n * k, std::memory_order_relaxed);
  // Row i of c is b'^T a_i. Row-major b is column-major b^T: b' = b^T when b_transposed
  // (a [k, n] column-major matrix, used transposed), else [n, k] column-major, used as it is.
  const char op = b_transposed ? 'T' : 'N';
  const int rows = static_cast<int>(b_transposed ? k : n);
  const int columns = static_cast<int>(b_transposed ? n : k);
  const int ld = static_cast<int>(ldb), one_step = 1;
  const float one = 1.0f;
  for (std::int64_t i = 0; i < m; ++i) {
    sgemv(&op, &rows, &columns, &one, b, &ld, a + i * lda, &one_step, &beta, c + i * ldc,
          &one_step);
  }
}

std::int64_t row_major_gemm_multiply_adds() {
  return multiply_adds_done.load(std::memory_order_relaxed);
}

void row_major_gemm_through_libtorch(bool a_transposed, bool b_transposed, std::int64_t m,
                                     std::int64_t n, std::int64_t k, const float* a,
                                     std::int64_t lda, const float* b, std::int64_t ldb,
                                     float beta, float* c, std::int64_t ldc) {
  at::Tensor out = at::from_blob(c, {m, n}, {ldc, 1});
  const at::Tensor left = matrix(a, m, k, lda, a_transposed);
  const at::Tensor right = matrix(b, k, n, ldb, b_transposed);
  if (beta == 0.0f) {
    at::mm_out(out, left, right);
  } else {
    out.addmm_(left, right, beta);
  }
}

}  // namespace mnrl::nn
