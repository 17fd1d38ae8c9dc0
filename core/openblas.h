#pragma once

#include <string>

namespace mnrl::core {

// The OpenBLAS that LibTorch's matrix products go through (libblas.so.3), looked up at run
// time: mnrl links no BLAS itself, and another BLAS may be installed.

// OpenBLAS's build line and the kernel it picked for this CPU (or that OPENBLAS_CORETYPE
// forced), e.g. "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY SkylakeX MAX_THREADS=64, kernel
// SkylakeX". Float rounding, and so training, differs between kernels: runs record it.
// "not OpenBLAS (...)" when libblas.so.3 is another BLAS, or LibTorch keeps its BLAS (MKL in
// the PyTorch wheels) to itself, which the parenthesis says.
std::string blas_description();

// The kernel alone ("SkylakeX"), or "" when the BLAS is not OpenBLAS.
std::string openblas_kernel();

// OpenBLAS's own thread count; nothing for another BLAS.
void set_openblas_threads(int threads);

}  // namespace mnrl::core
