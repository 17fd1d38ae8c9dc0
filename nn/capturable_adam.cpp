#include "nn/capturable_adam.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/empty.h>
#include <torch/utils.h>

#include <cmath>
#include <stdexcept>

#include "nn/optimizer_state_key.h"

namespace mnrl::nn {
namespace {

const torch::optim::AdamOptions& adam_options(const torch::optim::OptimizerParamGroup& group) {
  return static_cast<const torch::optim::AdamOptions&>(group.options());
}

}  // namespace

CapturableAdam::CapturableAdam(const std::vector<at::Tensor>& parameters,
                               const torch::optim::AdamOptions& options)
    : torch::optim::Adam(parameters, options) {
  if (options.weight_decay() != 0.0 || options.amsgrad()) {
    throw std::invalid_argument("CapturableAdam: no weight decay and no AMSGrad");
  }
}

torch::Tensor CapturableAdam::step(LossClosure closure) {
  torch::Tensor loss;
  if (closure) {
    at::AutoGradMode enable_grad(true);
    loss = closure();
  }
  prepare_step();
  update();
  return loss;
}

void CapturableAdam::prepare_step() {
  torch::NoGradGuard no_grad;
  std::size_t index = 0;
  for (auto& group : param_groups_) {
    const auto& options = adam_options(group);
    const auto [beta1, beta2] = options.betas();
    for (auto& p : group.params()) {
      if (scalars_.size() <= index) scalars_.resize(index + 1);
      at::Tensor& scalars = scalars_[index++];
      if (!p.grad().defined()) continue;
      auto& state = adam_state_of(state_, p);
      state.step(state.step() + 1);
      // Adam's host arithmetic, in double; rounded to float as its kernels round a scalar.
      const double bias_correction1 = 1.0 - std::pow(beta1, state.step());
      const double bias_correction2 = 1.0 - std::pow(beta2, state.step());
      if (!scalars.defined()) scalars = at::empty({2}, p.options());
      scalars[0].fill_(-options.lr() / bias_correction1);  // the step, negated
      scalars[1].fill_(std::sqrt(bias_correction2));
    }
  }
}

void CapturableAdam::update() {
  torch::NoGradGuard no_grad;
  std::size_t index = 0;
  for (auto& group : param_groups_) {
    const auto& options = adam_options(group);
    const auto [beta1, beta2] = options.betas();
    for (auto& p : group.params()) {
      const at::Tensor& scalars = scalars_.at(index++);
      if (!p.grad().defined()) continue;
      auto& state = adam_state_of(state_, p);  // made by prepare_step()
      const at::Tensor& gradient = p.grad();
      const at::Tensor& m = state.exp_avg();
      const at::Tensor& v = state.exp_avg_sq();
      m.mul_(beta1).add_(gradient, 1 - beta1);
      v.mul_(beta2).addcmul_(gradient, gradient, 1 - beta2);
      const at::Tensor denominator = (v.sqrt() / scalars[1]).add_(options.eps());
      // Adam's p.addcdiv_(m, denominator, -step_size), the step size read on the device.
      p.addcdiv_(m * scalars[0], denominator);
    }
  }
}

}  // namespace mnrl::nn
