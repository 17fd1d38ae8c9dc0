#include "distributed/nccl/cuda_runtime_check.h"

#include <ATen/Context.h>

#include <map>

#include "core/host_name.h"
#include "distributed/byte_exchange.h"
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

void refuse_shared_gpus(Communicator& mpi, const std::string& backend) {
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  char bus[64] = {};
  check_cuda(cudaDeviceGetPCIBusId(bus, sizeof bus, device), "cudaDeviceGetPCIBusId");
  const std::vector<std::string> gpus =
      all_gather_bytes(mpi, core::host_name() + " GPU " + bus);
  std::map<std::string, int> first_rank;
  for (int r = 0; r < static_cast<int>(gpus.size()); ++r) {
    const auto [seen, fresh] = first_rank.emplace(gpus[static_cast<std::size_t>(r)], r);
    if (fresh) continue;
    throw CommunicatorError(
        "distributed.backend " + backend + ": ranks " + std::to_string(seen->second) + " and " +
        std::to_string(r) + " both drive " + seen->first + ", and NCCL allows one rank per GPU "
        "(\"Duplicate GPU detected\"): start at most as many ranks per host as it has GPUs, or "
        "use distributed.backend: mpi (gradients then cross through host memory)");
  }
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
