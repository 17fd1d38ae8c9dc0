#pragma once

#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

namespace mnrl::nn {

// Float inputs of a device step (a sampled batch's observations, rewards, noise...) packed
// side by side on the host, pinned where the device is a GPU, and moved by one copy into one
// fixed tensor on the device, whose parts the step reads as views: one copy per step instead of
// one per input, and tensors that stay in place for a CUDA graph. On the CPU host and device
// are the same tensor.
class StagingPack {
 public:
  // Parts of `sizes` floats, in that order.
  StagingPack(c10::Device device, const std::vector<std::int64_t>& sizes);

  // Where the host writes part `part` (sizes[part] floats).
  float* host(std::size_t part);
  std::int64_t size(std::size_t part) const { return sizes_[part]; }
  // Part `part` on the device, 1-D: view() it into shape.
  at::Tensor device(std::size_t part) const;
  // Copies the host's pack to the device. Blocking: it waits for the device's earlier work
  // (which read the pack), so the host may write the pack again as soon as it returns.
  void upload();

 private:
  std::vector<std::int64_t> offsets_, sizes_;
  at::Tensor host_, device_;
};

}  // namespace mnrl::nn
