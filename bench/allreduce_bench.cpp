// All-reduce latency and bandwidth of the communicator, against a plain memcpy of the same size.
//
//   mpirun -np 2 build/bench/allreduce_bench [--backend mpi|nccl|hierarchical] [--max-bytes 67108864]
//
// The NCCL backends reduce tensors on each rank's GPU (bench/gpu/run.sh); memcpy stays a host
// copy.
// For each size it times `iterations` in-place sum all-reduces of a float tensor (after two
// warm-up calls; the reported time is the slowest rank's mean) and reports the algorithm
// bandwidth (size / time) and the bus bandwidth (2 (n - 1) / n * size / time: the bytes a ring
// all-reduce moves per rank, comparable across rank counts), next to memcpy's bandwidth.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <ATen/ops/ones.h>
#include <ATen/ops/full.h>

#include "distributed/communicator.h"

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Mean seconds per memcpy of `bytes`.
double memcpy_seconds(std::size_t bytes, int iterations) {
  // The destination is offset from the source's page alignment: copies between buffers at the
  // same offset within 4 KB pages run into 4K aliasing (about 20x slower at 4-64 KB here).
  std::vector<char> from(bytes, 1), to(bytes + 64);
  char* destination = to.data() + 64;
  std::memcpy(destination, from.data(), bytes);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) {
    from[static_cast<std::size_t>(i) % bytes] = static_cast<char>(i);
    std::memcpy(destination, from.data(), bytes);
  }
  return seconds_since(start) / iterations;
}

std::string format_bytes(std::size_t bytes) {
  return bytes >= (1u << 20) ? std::to_string(bytes >> 20) + " MB" : std::to_string(bytes >> 10) + " KB";
}

}  // namespace

int main(int argc, char** argv) {
  std::string backend = "auto";
  std::size_t max_bytes = 64u << 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--backend") backend = argv[i + 1];
    if (std::string(argv[i]) == "--max-bytes") max_bytes = std::stoull(argv[i + 1]);
  }
  auto comm = mnrl::distributed::make_communicator(backend);
  const int n = comm->size();
  const bool on_gpu = comm->backend() == "nccl" || comm->backend() == "hierarchical";
  const auto options = at::TensorOptions().device(on_gpu ? at::kCUDA : at::kCPU);
  if (comm->rank() == 0) {
    std::printf("all-reduce (sum, float32, in place), backend %s, %d ranks\n\n", comm->backend().c_str(), n);
    std::printf("| size | latency | algorithm bandwidth | bus bandwidth | memcpy |\n");
    std::printf("| --- | --- | --- | --- | --- |\n");
  }
  for (std::size_t bytes = 1u << 10; bytes <= max_bytes; bytes *= 4) {
    const auto floats = static_cast<std::int64_t>(bytes / sizeof(float));
    at::Tensor values = at::ones({floats}, options);
    const int iterations = static_cast<int>(std::clamp<std::size_t>((256u << 20) / bytes, 5, 2000));
    comm->all_reduce(values, mnrl::distributed::ReduceOp::kSum);
    comm->all_reduce(values, mnrl::distributed::ReduceOp::kSum);
    comm->barrier();
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) comm->all_reduce(values, mnrl::distributed::ReduceOp::kSum);
    at::Tensor seconds =
        at::full({1}, seconds_since(start) / iterations, options.dtype(at::kDouble));
    comm->all_reduce(seconds, mnrl::distributed::ReduceOp::kMax);
    const double t = seconds.item<double>();
    const double copy = memcpy_seconds(bytes, iterations);
    if (comm->rank() == 0) {
      const double gb = static_cast<double>(bytes) / 1e9;
      std::printf("| %s | %.1f us | %.2f GB/s | %.2f GB/s | %.2f GB/s |\n", format_bytes(bytes).c_str(),
                  t * 1e6, gb / t, 2.0 * (n - 1) / n * gb / t, gb / copy);
    }
  }
  return 0;
}
