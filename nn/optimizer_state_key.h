#pragma once

#include <sstream>
#include <string>
#include <type_traits>

#include <ATen/core/Tensor.h>

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

}  // namespace mnrl::nn
