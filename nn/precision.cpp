#include "nn/precision.h"

#include <ATen/Context.h>
#include <ATen/autocast_mode.h>
#include <torch/version.h>

#include <stdexcept>

#if MNRL_CUDA_HEADERS
#include <ATen/cuda/CUDAContext.h>
#endif

// LibTorch 2.4 names autocast's state per device type; earlier ones name the GPU's.
#define MNRL_AUTOCAST_PER_DEVICE_TYPE \
  (TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4))

namespace mnrl::nn {

Precision precision_named(const std::string& name) {
  if (name == "fp32") return Precision::fp32;
  if (name == "tf32") return Precision::tf32;
  if (name == "bf16") return Precision::bf16;
  throw std::invalid_argument("precision '" + name + "' is not fp32, tf32 or bf16");
}

std::string why_precision_unsupported(Precision precision, const c10::Device& device) {
  if (precision == Precision::fp32) return "";
  if (!device.is_cuda()) return "the CPU has no tensor cores";
  if (precision == Precision::tf32) return "";
#if MNRL_CUDA_HEADERS
  const auto* properties = at::cuda::getDeviceProperties(device.has_index() ? device.index() : 0);
  if (properties->major >= 8) return "";
  return std::string(properties->name) + " (compute capability " +
         std::to_string(properties->major) + "." + std::to_string(properties->minor) +
         ") has no bfloat16 tensor cores (8.0 and above have; use tf32 or fp32)";
#else
  return "this LibTorch has no CUDA";
#endif
}

void set_tf32(bool on) {
  at::globalContext().setFloat32MatmulPrecision(on ? "high" : "highest");
  at::globalContext().setAllowTF32CuDNN(on);
}

Bf16Autocast::Bf16Autocast(bool enabled) : enabled_(enabled) {
  if (!enabled_) return;
  was_caching_ = at::autocast::is_autocast_cache_enabled();
#if MNRL_AUTOCAST_PER_DEVICE_TYPE
  was_enabled_ = at::autocast::is_autocast_enabled(at::kCUDA);
  was_dtype_ = at::autocast::get_autocast_dtype(at::kCUDA);
  at::autocast::set_autocast_dtype(at::kCUDA, at::kBFloat16);
  at::autocast::set_autocast_enabled(at::kCUDA, true);
#else
  was_enabled_ = at::autocast::is_enabled();
  was_dtype_ = at::autocast::get_autocast_gpu_dtype();
  at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
  at::autocast::set_enabled(true);
#endif
  at::autocast::set_autocast_cache_enabled(false);
}

Bf16Autocast::~Bf16Autocast() {
  if (!enabled_) return;
  at::autocast::set_autocast_cache_enabled(was_caching_);
#if MNRL_AUTOCAST_PER_DEVICE_TYPE
  at::autocast::set_autocast_enabled(at::kCUDA, was_enabled_);
  at::autocast::set_autocast_dtype(at::kCUDA, was_dtype_);
#else
  at::autocast::set_enabled(was_enabled_);
  at::autocast::set_autocast_gpu_dtype(was_dtype_);
#endif
}

}  // namespace mnrl::nn
