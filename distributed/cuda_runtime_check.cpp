#include "distributed/cuda_runtime_check.h"

#include <ATen/Context.h>

#include "distributed/communicator.h"

namespace mnrl::distributed {

void check_cuda(cudaError_t status, const std::string& what) {
  if (status != cudaSuccess) throw CommunicatorError(what + ": " + cudaGetErrorString(status));
}

void check_nccl(ncclResult_t status, const std::string& what) {
  if (status != ncclSuccess) throw CommunicatorError(what + ": " + ncclGetErrorString(status));
}

void require_gpu(const std::string& backend, int local_rank) {
  if (!at::hasCUDA()) {
    throw CommunicatorError("distributed.backend " + backend +
                            ": this LibTorch has no CUDA (Debian's libtorch is CPU-only); use "
                            "mpi, or build mnrl against a CUDA-enabled LibTorch");
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    throw CommunicatorError("distributed.backend " + backend +
                            ": no GPU is visible to this process; use mpi");
  }
  check_cuda(cudaSetDevice(local_rank % devices), "cudaSetDevice");
}

ncclDataType_t nccl_type(const at::Tensor& tensor, const char* call) {
  TORCH_CHECK(tensor.defined() && tensor.is_cuda() && tensor.is_contiguous(), call,
              ": the NCCL backends need contiguous CUDA tensors");
  switch (tensor.scalar_type()) {
    case at::kFloat:
      return ncclFloat32;
    case at::kDouble:
      return ncclFloat64;
    case at::kLong:
      return ncclInt64;
    default:
      TORCH_CHECK(false, call, ": float, double or int64 tensors only, not ", tensor.scalar_type());
  }
}

}  // namespace mnrl::distributed
