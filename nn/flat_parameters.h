#pragma once

#include <cstdint>

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>

namespace mnrl::nn {

// Moves every parameter of a module into one contiguous buffer, and gives every parameter a
// gradient that is a view into a second one. An optimizer step, a gradient-norm clip or an
// all-reduce is then one op on one tensor instead of one per parameter (on small networks the
// per-op overhead, not the arithmetic, dominates an update).
//
// Invariants: the module's parameters alias values(); their .grad() alias gradients(), and
// backward() accumulates into them in place. So gradients must be cleared with zero_grad()
// here, never by an optimizer's zero_grad() (LibTorch 2.x resets grads to undefined, which
// would detach them from the flat buffer), and parameters must be written in place (copy_),
// never replaced (set_data / torch::load).
class FlatParameters {
 public:
  explicit FlatParameters(torch::nn::Module& module);

  // [numel] parameter values; values().grad() is gradients(), so an optimizer can take it
  // as its single parameter.
  const at::Tensor& values() const { return values_; }
  const at::Tensor& gradients() const { return gradients_; }
  std::int64_t numel() const { return values_.numel(); }

  void zero_grad() { gradients_.zero_(); }

  // values()[offset, offset + count) as a tensor whose .grad() is the same range of
  // gradients(): the share of one optimizer when the buffer holds several networks (an actor's
  // and its critics'), in the order module.parameters() listed them.
  at::Tensor segment(std::int64_t offset, std::int64_t count) const;

 private:
  at::Tensor values_;
  at::Tensor gradients_;
};

}  // namespace mnrl::nn
