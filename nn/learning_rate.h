#pragma once

#include <torch/optim/optimizer.h>

namespace mnrl::nn {

// Sets the step size of every parameter group of `optimizer`. A schedule sets it before each
// update from the training progress (agents/schedule.h): checkpoints do not keep it.
inline void set_learning_rate(torch::optim::Optimizer& optimizer, double learning_rate) {
  for (auto& group : optimizer.param_groups()) group.options().set_lr(learning_rate);
}

// The step size of `optimizer`'s first parameter group.
inline double learning_rate_of(const torch::optim::Optimizer& optimizer) {
  return optimizer.param_groups().front().options().get_lr();
}

}  // namespace mnrl::nn
