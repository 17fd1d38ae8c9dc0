#include "nn/staging_pack.h"

#include <ATen/ops/empty.h>

namespace mnrl::nn {

StagingPack::StagingPack(c10::Device device, const std::vector<std::int64_t>& sizes)
    : sizes_(sizes) {
  std::int64_t total = 0;
  for (const std::int64_t size : sizes_) {
    offsets_.push_back(total);
    total += size;
  }
  const auto floats = at::TensorOptions().dtype(at::kFloat);
  host_ = at::empty({total}, floats.pinned_memory(device.is_cuda()));
  device_ = device.is_cpu() ? host_ : at::empty({total}, floats.device(device));
}

float* StagingPack::host(std::size_t part) {
  return host_.data_ptr<float>() + offsets_.at(part);
}

at::Tensor StagingPack::device(std::size_t part) const {
  return device_.narrow(0, offsets_.at(part), sizes_.at(part));
}

void StagingPack::upload() {
  if (!device_.is_same(host_)) device_.copy_(host_);
}

}  // namespace mnrl::nn
