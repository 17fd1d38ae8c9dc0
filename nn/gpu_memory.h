#pragma once

#include <c10/core/Device.h>

#include <optional>

namespace mnrl::nn {

// The bytes free on the GPU `device` now, as its driver counts them (what a run can still
// allocate there); nullopt where this LibTorch has no CUDA or the driver cannot say.
std::optional<double> gpu_free_bytes(const c10::Device& device);

}  // namespace mnrl::nn
