#include "nn/gpu_memory.h"

#if MNRL_CUDA_HEADERS
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#endif

namespace mnrl::nn {

std::optional<double> gpu_free_bytes(const c10::Device& device) {
#if MNRL_CUDA_HEADERS
  const c10::cuda::CUDAGuard guard(device.has_index() ? device.index() : 0);
  std::size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) {
    (void)cudaGetLastError();  // clears the error for LibTorch's next call
    return std::nullopt;
  }
  return static_cast<double>(free);
#else
  (void)device;
  return std::nullopt;
#endif
}

}  // namespace mnrl::nn
