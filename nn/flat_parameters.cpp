#include "nn/flat_parameters.h"

#include <stdexcept>
#include <string>

#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <torch/utils.h>

namespace mnrl::nn {

FlatParameters::FlatParameters(torch::nn::Module& module) {
  auto parameters = module.parameters();
  std::int64_t total = 0;
  for (const auto& p : parameters) total += p.numel();
  const auto options = parameters.empty() ? at::TensorOptions(at::kFloat)
                                          : parameters.front().options().requires_grad(false);
  values_ = at::empty({total}, options);
  gradients_ = at::zeros({total}, options);

  torch::NoGradGuard no_grad;
  std::int64_t offset = 0;
  for (auto& p : parameters) {
    const std::int64_t n = p.numel();
    at::Tensor value_slot = values_.narrow(0, offset, n).view(p.sizes());
    value_slot.copy_(p);
    // Same autograd identity (the module still owns `p`), new storage: the flat buffer.
    p.set_data(value_slot);
    p.mutable_grad() = gradients_.narrow(0, offset, n).view(p.sizes());
    offset += n;
  }
  values_.mutable_grad() = gradients_;
}

at::Tensor FlatParameters::segment(std::int64_t offset, std::int64_t count) const {
  if (offset < 0 || count < 0 || offset + count > numel()) {
    throw std::out_of_range("FlatParameters::segment: [" + std::to_string(offset) + ", " +
                            std::to_string(offset + count) + ") is outside the " +
                            std::to_string(numel()) + " parameters");
  }
  at::Tensor values = values_.narrow(0, offset, count);
  values.mutable_grad() = gradients_.narrow(0, offset, count);
  return values;
}

}  // namespace mnrl::nn
