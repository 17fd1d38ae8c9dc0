#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/ops/zeros_like.h>
#include <torch/optim/adam.h>

#include <sstream>
#include <string>
#include <type_traits>

namespace mnrl::nn {

// The key of a parameter in torch::optim::Optimizer::state(): the parameter's TensorImpl
// address printed as a string in LibTorch 1.x, the address itself in 2.x. `Key` is the state
// map's key_type.
template <class Key>
Key optimizer_state_key(const at::Tensor& parameter) {
  void* impl = parameter.unsafeGetTensorImpl();
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream out;
    out << impl;
    return out.str();
  } else {
    return impl;
  }
}

// `parameter`'s Adam state in `states` (an optimizer's state()), made with zero moments the
// first time it is asked for (its first step).
template <class States>
torch::optim::AdamParamState& adam_state_of(States& states, const at::Tensor& parameter) {
  using Key = typename std::decay_t<decltype(states)>::key_type;
  auto& slot = states[optimizer_state_key<Key>(parameter)];
  if (!slot) {
    auto fresh = std::make_unique<torch::optim::AdamParamState>();
    fresh->exp_avg(at::zeros_like(parameter, at::MemoryFormat::Contiguous));
    fresh->exp_avg_sq(at::zeros_like(parameter, at::MemoryFormat::Contiguous));
    slot = std::move(fresh);
  }
  return static_cast<torch::optim::AdamParamState&>(*slot);
}

}  // namespace mnrl::nn
