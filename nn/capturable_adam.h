#pragma once

#include <vector>

#include <ATen/core/Tensor.h>
#include <torch/optim/adam.h>

namespace mnrl::nn {

// torch::optim::Adam whose step can be captured in a CUDA graph and replayed. LibTorch's Adam
// computes its bias corrections on the host from a step count kept there, so a capture would
// bake the first step's corrections into every replay. Here a step has two halves:
// prepare_step(), on the host, counts the step and writes the step size and the second
// moment's correction into small tensors on the parameters' device (fills: no copy, no wait);
// update() is device work only, reading them, and may be captured once and replayed after
// each prepare_step(). step() does both. The state is Adam's (AdamParamState, saved and loaded
// as Adam's), and the results are Adam's to float rounding (tested against torch::optim::Adam).
// No weight decay, no AMSGrad (refused at construction).
class CapturableAdam final : public torch::optim::Adam {
 public:
  CapturableAdam(const std::vector<at::Tensor>& parameters, const torch::optim::AdamOptions& options);

  torch::Tensor step(LossClosure closure = nullptr) override;

  // Counts a step of every parameter with a gradient and fills its device scalars. Creates the
  // moments at the first step, so update() allocates nothing.
  void prepare_step();
  // The moments and the parameters updated from the gradients; device work only.
  void update();

 private:
  // Per parameter, in param_groups() order: {-step size, sqrt of the second bias correction}
  // on the parameter's device; undefined until its first prepare_step().
  std::vector<at::Tensor> scalars_;
};

}  // namespace mnrl::nn
