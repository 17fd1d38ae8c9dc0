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
  auto* config = find<char*()>("openblas_get_config");
  if (!config) return "not OpenBLAS";
  return std::string(config()) + ", kernel " + openblas_kernel();
}

void set_openblas_threads(int threads) {
  if (auto* set_threads = find<void(int)>("openblas_set_num_threads")) set_threads(threads);
}

}  // namespace mnrl::core
