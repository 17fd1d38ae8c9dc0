#include "nn/activation.h"

#include <stdexcept>

#include <ATen/ops/empty_like.h>
#include <ATen/ops/relu.h>
#include <ATen/ops/tanh_backward.h>
#include <torch/autograd.h>

#include "core/text.h"
#include "nn/tanh_array.h"

namespace mnrl::nn {
namespace {

// tanh through tanh_of_array (see there why), with LibTorch's own tanh gradient.
struct TanhFunction : public torch::autograd::Function<TanhFunction> {
  static at::Tensor forward(torch::autograd::AutogradContext* context, const at::Tensor& x) {
    const at::Tensor input = x.contiguous();
    at::Tensor y = at::empty_like(input);
    tanh_of_array(input.data_ptr<float>(), y.data_ptr<float>(), input.numel());
    context->save_for_backward({y});
    return y;
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* context,
                                                 torch::autograd::variable_list gradients) {
    return {at::tanh_backward(gradients[0], context->get_saved_variables()[0])};
  }
};

}  // namespace

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
      // The kernel handles contiguous float32; anything else keeps LibTorch's tanh.
      return x.scalar_type() == at::kFloat && x.device().is_cpu() ? TanhFunction::apply(x)
                                                                  : x.tanh();
    case Activation::relu:
      return at::relu(x);
  }
  throw std::logic_error("apply_activation: unhandled activation");
}

}  // namespace mnrl::nn
