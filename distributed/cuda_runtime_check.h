#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string>

#include <ATen/core/Tensor.h>

namespace mnrl::distributed {

// Throws CommunicatorError("<what>: <CUDA's / NCCL's message>") unless the call succeeded.
void check_cuda(cudaError_t status, const std::string& what);
void check_nccl(ncclResult_t status, const std::string& what);

// Throws CommunicatorError naming `backend` unless this LibTorch was built with CUDA and a GPU
// is visible; then makes GPU `local_rank` modulo the GPU count this thread's device.
void require_gpu(const std::string& backend, int local_rank);

// The NCCL type of a tensor of float, double or int64 (a CUDA tensor, contiguous).
ncclDataType_t nccl_type(const at::Tensor& tensor, const char* call);

}  // namespace mnrl::distributed
