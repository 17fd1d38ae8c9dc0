#include "experiments/training/train_device.h"

#include <torch/cuda.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>

#include "core/config.h"
#include "distributed/communicator.h"
#include "experiments/training/topology_registry.h"
#include "nn/gpu_memory.h"
#include "nn/precision.h"

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

// The ranks of this host that train on a GPU: all of them, but in an actors-and-learners job
// only its learners (its first ranks: at most distributed.learners here), whose actors act on
// the CPU.
int ranks_needing_a_gpu_here(const ExperimentOptions& options) {
  const int ranks_here = distributed::ranks_on_this_host();
  if (!topology_kind(options.algorithm()).has_learners()) return ranks_here;
  return std::min(ranks_here, options.distributed.learners);
}

core::ConfigError device_error(const std::string& device, const std::string& why) {
  return core::ConfigError("train.device: " + device + ", but " + why +
                           "; use train.device: cpu or auto (a resume may change train.device "
                           "in the run's config.yaml)");
}

// train.device as this process first resolved it, for a rank of `local_rank`.
std::string resolve_once(const ExperimentOptions& options, int local_rank) {
  const std::string& device = options.train.device;
  const int ranks_here = ranks_needing_a_gpu_here(options);
  if (device == "auto") {
    if (!why_no_gpu().empty() || static_cast<int>(torch::cuda::device_count()) < ranks_here) {
      return "cpu";
    }
    return "cuda:" + std::to_string(local_rank % static_cast<int>(torch::cuda::device_count()));
  }
  if (const std::string reason = why_no_gpu(); !reason.empty()) throw device_error(device, reason);
  const auto gpus = static_cast<int>(torch::cuda::device_count());
  if (device == "cuda") return "cuda:" + std::to_string(local_rank % gpus);
  const int index = std::stoi(device.substr(5));  // "cuda:N", checked by validate_experiment
  if (index >= gpus) {
    throw device_error(device, "this machine shows " + std::to_string(gpus) +
                                   " GPU(s), cuda:0 to cuda:" + std::to_string(gpus - 1));
  }
  if (ranks_here > 1) {
    throw device_error(device, "it would put all " + std::to_string(ranks_here) +
                                   " ranks of this host on one GPU; cuda gives each the GPU "
                                   "of its local rank");
  }
  return device;
}

}  // namespace

std::string resolve_train_device(const ExperimentOptions& options, int local_rank) {
  if (options.train.device == "cpu" || !gpu_capable(options)) return "cpu";
  // The job's communicator, each agent made and each checkpoint ask; CUDA and the host's ranks
  // are probed once per process and the answer kept, so that all of them get the same one.
  using Question = std::tuple<std::string, int, int>;
  static std::mutex mutex;
  static std::map<Question, std::string> answers;
  const Question question{options.train.device, ranks_needing_a_gpu_here(options), local_rank};
  const std::lock_guard<std::mutex> lock(mutex);
  const auto known = answers.find(question);
  if (known != answers.end()) return known->second;
  return answers.emplace(question, resolve_once(options, local_rank)).first->second;
}

std::string why_gpu_memory_short(double network_bytes, double free_bytes,
                                 const std::string& device) {
  if (network_bytes <= free_bytes) return "";
  const auto gib = [](double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
    return std::string(text);
  };
  return "network.hidden_sizes (with network.encoder): the networks, their gradients and Adam's "
         "moments take about " +
         gib(network_bytes) + ", and " + device + " has " + gib(free_bytes) +
         " free: use smaller networks, a GPU with more memory free, or train.device: cpu";
}

namespace {

// A GPU's free memory as this process first asked, before its own networks, allocator cache
// and graphs took some: later checks (a second agent, a resume in the same process) compare with
// that, not with what this process holds itself.
std::optional<double> free_bytes_at_first_ask(const std::string& device) {
  static std::mutex mutex;
  static std::map<std::string, std::optional<double>> answers;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto found = answers.find(device);
  if (found != answers.end()) return found->second;
  return answers[device] = nn::gpu_free_bytes(at::Device(device));
}

}  // namespace

void check_device_options(const ExperimentOptions& options, int local_rank) {
  const std::string device = resolve_train_device(options, local_rank);
  if (device != "cpu") {
    if (const std::optional<double> free = free_bytes_at_first_ask(device)) {
      const std::string why = why_gpu_memory_short(options.network_bytes, *free, device);
      if (!why.empty()) throw core::ConfigError(why);
    }
  }
  const auto chose_the_cpu = [&](const std::string& setting) {
    return core::ConfigError(setting + ", but train.device: " + options.train.device +
                             " chose the CPU (no GPU usable here)");
  };
  if (options.train.cuda_graphs == "on" && device == "cpu") {
    throw chose_the_cpu("train.cuda_graphs: on");
  }
  const nn::Precision precision = nn::precision_named(options.train.precision);
  if (precision == nn::Precision::fp32) return;
  if (device == "cpu") throw chose_the_cpu("train.precision: " + options.train.precision);
  if (const std::string why = nn::why_precision_unsupported(precision, at::Device(device));
      !why.empty()) {
    throw core::ConfigError("train.precision: " + options.train.precision + ", but " + device +
                            ": " + why);
  }
}

ExperimentOptions on_the_cpu(ExperimentOptions options) {
  options.train.device = "cpu";
  options.train.cuda_graphs = "off";
  options.train.precision = "fp32";
  return options;
}

bool trains_on_cuda(const ExperimentOptions& options) {
  return resolve_train_device(options) != "cpu";
}

}  // namespace mnrl::experiments
