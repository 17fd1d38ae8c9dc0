#pragma once

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <string>

namespace mnrl::nn {

// train.precision: how a GPU computes the networks. Parameters, gradients and optimizer state
// stay float32 in every mode (bf16's "master weights").
enum class Precision {
  fp32,  // float32 throughout
  tf32,  // float32 matmuls and convolutions on TensorFloat-32 tensor cores (10-bit mantissa
         // inputs, float32 sums)
  bf16,  // matmuls and convolutions in bfloat16 (CUDA autocast), everything else in float32
};

// "fp32", "tf32" or "bf16" (validated by the config); throws std::invalid_argument otherwise.
Precision precision_named(const std::string& name);

// Why `device` cannot compute in `precision`, or empty where it can: tf32 and bf16 are
// tensor-core modes of a GPU, and bf16 needs one of compute capability 8.0 or above (Ampere).
std::string why_precision_unsupported(Precision precision, const c10::Device& device);

// This process's float32 matmuls (cuBLAS: LibTorch's float32 matmul precision "high") and
// convolutions (cuDNN) on TF32 tensor cores, or both in full float32 (matmul precision
// "highest"; LibTorch's own default lets cuDNN use TF32, which fp32 turns off).
void set_tf32(bool on);

// For its scope, where `enabled`: this thread's CUDA matmuls and convolutions in bfloat16
// (LibTorch's CUDA autocast; the ops autocast keeps in float32 stay there), without autocast's
// cache of cast weights, which a CUDA graph cannot hold and which would go stale as the
// optimizer writes the weights in place. Nothing where not enabled, and nothing on the CPU.
class Bf16Autocast {
 public:
  explicit Bf16Autocast(bool enabled);
  ~Bf16Autocast();
  Bf16Autocast(const Bf16Autocast&) = delete;
  Bf16Autocast& operator=(const Bf16Autocast&) = delete;

 private:
  bool enabled_;
  bool was_enabled_ = false, was_caching_ = false;
  c10::ScalarType was_dtype_ = c10::ScalarType::Half;
};

}  // namespace mnrl::nn
