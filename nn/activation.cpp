#include "nn/activation.h"

#include <ATen/ops/relu.h>
#include <ATen/ops/tanh.h>
#include <stdexcept>

#include "core/text.h"

namespace mnrl::nn {

const std::vector<std::string>& activation_names() {
  static const std::vector<std::string> names{"tanh", "relu"};
  return names;
}

Activation activation_from_name(const std::string& name) {
  if (name == "tanh") return Activation::tanh;
  if (name == "relu") return Activation::relu;
  throw std::invalid_argument("unknown activation '" + name + "'; expected one of: " +
                              core::join(activation_names()));
}

at::Tensor apply_activation(Activation activation, const at::Tensor& x) {
  switch (activation) {
    case Activation::tanh:
      return at::tanh(x);
    case Activation::relu:
      return at::relu(x);
  }
  throw std::logic_error("apply_activation: unhandled activation");
}

}  // namespace mnrl::nn
