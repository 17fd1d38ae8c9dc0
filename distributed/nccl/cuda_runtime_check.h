#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string>

#include <ATen/core/Tensor.h>

namespace mnrl::distributed {

class Communicator;

// Throws CommunicatorError("<what>: <CUDA's / NCCL's message>") unless the call succeeded.
void check_cuda(cudaError_t status, const std::string& what);
void check_nccl(ncclResult_t status, const std::string& what);

// Throws CommunicatorError naming `backend` unless this LibTorch was built with CUDA and a GPU
// is visible; then makes GPU `local_rank` modulo the GPU count this thread's device.
void require_gpu(const std::string& backend, int local_rank);

// Throws CommunicatorError on every rank of `mpi` when two of them drive one GPU of one host
// (the same host name and PCI bus id), which NCCL refuses ("Duplicate GPU detected" in
// ncclCommInitRank), saying which ranks and what to do instead.
void refuse_shared_gpus(Communicator& mpi, const std::string& backend);

// The NCCL type of a tensor of float, double or int64 (a CUDA tensor, contiguous).
ncclDataType_t nccl_type(const at::Tensor& tensor, const char* call);

}  // namespace mnrl::distributed
