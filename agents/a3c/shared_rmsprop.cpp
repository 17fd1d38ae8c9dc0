#include "agents/a3c/shared_rmsprop.h"

#include <mutex>
#include <stdexcept>

#include <ATen/ops/zeros_like.h>
#include <torch/utils.h>

namespace mnrl::agents {

SharedModel::SharedModel(const at::Tensor& initial_parameters)
    : parameters(initial_parameters.detach().clone()), square_avg(at::zeros_like(parameters)) {}

void SharedModel::copy_to(const at::Tensor& local) {
  torch::NoGradGuard no_grad;
  std::unique_lock<std::shared_mutex> exclusive(lock);
  local.copy_(parameters);
}

void rmsprop_update(const at::Tensor& parameters, const at::Tensor& square_avg,
                    const at::Tensor& grad, double lr, double alpha, double eps) {
  square_avg.mul_(alpha).addcmul_(grad, grad, 1 - alpha);
  const at::Tensor average = square_avg.sqrt().add_(eps);
  parameters.addcdiv_(grad, average, -lr);
}

SharedRmsprop::SharedRmsprop(const at::Tensor& local_parameters,
                             std::shared_ptr<SharedModel> shared,
                             const torch::optim::RMSpropOptions& options)
    : Optimizer({torch::optim::OptimizerParamGroup({local_parameters})},
                std::make_unique<torch::optim::RMSpropOptions>(options)),
      local_(local_parameters),
      shared_(std::move(shared)) {
  if (!shared_ || !shared_->parameters.sizes().equals(local_parameters.sizes())) {
    throw std::invalid_argument("SharedRmsprop: the shared model does not match the local one");
  }
  if (options.centered() || options.momentum() != 0 || options.weight_decay() != 0) {
    throw std::invalid_argument("SharedRmsprop: only plain RMSprop is shared");
  }
}

at::Tensor SharedRmsprop::step(LossClosure closure) {
  torch::NoGradGuard no_grad;
  at::Tensor loss;
  if (closure) loss = closure();
  const auto& options =
      static_cast<const torch::optim::RMSpropOptions&>(param_groups().front().options());
  const at::Tensor& grad = local_.grad();
  {
    // torch's RMSprop, op for op, on the shared tensors (Hogwild: other workers may be here).
    std::shared_lock<std::shared_mutex> hogwild(shared_->lock);
    rmsprop_update(shared_->parameters, shared_->square_avg, grad, options.lr(), options.alpha(),
                   options.eps());
  }
  shared_->copy_to(local_);
  return loss;
}

}  // namespace mnrl::agents
