#pragma once

#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

namespace mnrl::nn {

enum class Activation { tanh, relu };

// "tanh" -> Activation::tanh. Throws std::invalid_argument for other names.
Activation activation_from_name(const std::string& name);
const std::vector<std::string>& activation_names();

at::Tensor apply_activation(Activation activation, const at::Tensor& x);

}  // namespace mnrl::nn
