#pragma once

#include <cstdint>
#include <cstring>

#include <ATen/core/Tensor.h>
#include <ATen/ops/from_blob.h>

namespace mnrl::nn {

// Tensors over the plain float arrays agents share with envs and buffers, and back.

// The floats of a contiguous float tensor on the host.
inline float* floats(const at::Tensor& t) { return t.data_ptr<float>(); }

// A [rows] (cols == 0) or [rows, cols] float tensor over memory owned elsewhere: no copy, so
// the memory must outlive the tensor.
inline at::Tensor view_floats(const float* data, std::int64_t rows, std::int64_t cols = 0) {
  auto* p = const_cast<float*>(data);
  return cols == 0 ? at::from_blob(p, {rows}, at::kFloat)
                   : at::from_blob(p, {rows, cols}, at::kFloat);
}

// The same floats as a tensor on `device`: the view itself on the CPU, one copy elsewhere. A
// GPU copy goes through page-locked memory (LibTorch's caching host allocator keeps the block
// until the copy has run), so it is a DMA the host does not wait for; the caller's memory may
// change as soon as this returns.
inline at::Tensor floats_on(const at::Device& device, const float* data, std::int64_t rows,
                            std::int64_t cols = 0) {
  const at::Tensor host = view_floats(data, rows, cols);
  if (device.is_cpu()) return host;
  return host.pin_memory().to(device, /*non_blocking=*/true);
}

// Copies every element of `t` (of element type T, on any device) to `out`.
template <class T>
void copy_out(const at::Tensor& t, T* out) {
  const at::Tensor c = t.to(at::kCPU).contiguous();
  std::memcpy(out, c.data_ptr<T>(), static_cast<std::size_t>(c.numel()) * sizeof(T));
}

}  // namespace mnrl::nn
