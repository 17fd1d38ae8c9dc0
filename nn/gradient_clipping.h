#pragma once

#include <ATen/core/Tensor.h>

namespace mnrl::nn {

// torch::nn::utils::clip_grad_norm_(flat, max_norm) for one flat parameter tensor (FlatParameters
// values(), whose .grad() is the flat gradient), bit for bit, but cheaper on the usual step that
// does not clip: LibTorch's norm, divide, clamp and multiply cost ~25 us on 67k floats, a sum of
// squares a fraction of that. Where that sum says the norm is below
// 99% of max_norm (its float rounding is far below 1%), LibTorch would multiply by exactly 1;
// anywhere else (near or above max_norm, NaN, infinity) it runs LibTorch's own clip. Off the
// CPU it is clip_gradient_norm_on_device().
void clip_gradient_norm(const at::Tensor& flat, double max_norm);

// LibTorch's clip, its arithmetic op for op (the gradient times min(1, max_norm / (norm +
// 1e-6))), without its last step, which reads the norm back to the host to return it: so a GPU
// need not wait, and a CUDA graph can capture it. The same bits as LibTorch's.
void clip_gradient_norm_on_device(const at::Tensor& flat, double max_norm);

}  // namespace mnrl::nn
