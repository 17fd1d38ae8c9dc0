#include "experiments/training/train_device.h"

#include <torch/cuda.h>

#include "core/config.h"

namespace mnrl::experiments {
namespace {

// Why this process cannot train on a GPU, or empty. (LibTorch tells "no CUDA in this build"
// and "no GPU visible" apart only through its CUDA library, absent from a CPU build.)
std::string why_no_gpu() {
  if (torch::cuda::is_available()) return "";
  return "no GPU is usable: this mnrl's LibTorch is a CPU-only build (build against a CUDA "
         "LibTorch: README, \"GPUs\"), or no GPU is visible (nvidia-smi, CUDA_VISIBLE_DEVICES)";
}

// Whether the run's agents can train on a GPU: an autograd path, and no gSDE.
bool gpu_capable(const ExperimentOptions& options) {
  return options.algorithm().takes_device() && !uses_sde(options);
}

}  // namespace

std::string resolve_train_device(const ExperimentOptions& options, int local_rank, int ranks) {
  const std::string& device = options.train.device;
  if (device == "cpu" || !gpu_capable(options)) return "cpu";
  if (device == "auto") {
    if (!why_no_gpu().empty()) return "cpu";
    return "cuda:" + std::to_string(local_rank % static_cast<int>(torch::cuda::device_count()));
  }
  if (const std::string reason = why_no_gpu(); !reason.empty()) {
    throw core::ConfigError("train.device: " + device + ", but " + reason +
                            "; use train.device: cpu or auto");
  }
  const auto gpus = static_cast<int>(torch::cuda::device_count());
  if (device == "cuda") return "cuda:" + std::to_string(local_rank % gpus);
  const int index = std::stoi(device.substr(5));  // "cuda:N", checked by validate_experiment
  if (index >= gpus) {
    throw core::ConfigError("train.device: " + device + ", but this machine shows " +
                            std::to_string(gpus) + " GPU(s), cuda:0 to cuda:" +
                            std::to_string(gpus - 1));
  }
  if (ranks > 1) {
    throw core::ConfigError("train.device: " + device + " puts all " + std::to_string(ranks) +
                            " ranks of the job on one GPU; use cuda, which gives each rank of a "
                            "node the GPU of its local rank");
  }
  return device;
}

bool trains_on_cuda(const ExperimentOptions& options) {
  return options.train.device != "cpu" && gpu_capable(options) &&
         (options.train.device != "auto" || why_no_gpu().empty());
}

}  // namespace mnrl::experiments
