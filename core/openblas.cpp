#include "core/openblas.h"

#include <dlfcn.h>

namespace mnrl::core {
namespace {

template <class Function>
Function* find(const char* name) {
  return reinterpret_cast<Function*>(dlsym(RTLD_DEFAULT, name));
}

}  // namespace

std::string openblas_kernel() {
  auto* corename = find<char*()>("openblas_get_corename");
  return corename ? corename() : "";
}

std::string blas_description() {
  if (auto* config = find<char*()>("openblas_get_config")) {
    return std::string(config()) + ", kernel " + openblas_kernel();
  }
  // nn/row_major_gemm calls sgemm_ where one is loaded, and LibTorch's mm (6-12 us more per
  // product) where LibTorch keeps its BLAS to itself, as the PyTorch wheels' MKL.
  if (find<void()>("sgemm_")) return "not OpenBLAS (another BLAS's sgemm_)";
  return "not OpenBLAS (LibTorch's own, not exported: products go through LibTorch's mm)";
}

void set_openblas_threads(int threads) {
  if (auto* set_threads = find<void(int)>("openblas_set_num_threads")) set_threads(threads);
}

}  // namespace mnrl::core
