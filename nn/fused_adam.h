#pragma once

#include <torch/optim/adam.h>

namespace mnrl::nn {

// torch::optim::Adam whose step() updates each parameter in one pass over its floats, instead
// of LibTorch's seven tensor ops and two temporaries: on a flat parameter buffer of a small
// network the ops' overhead, not the arithmetic, was most of an Adam step (100 us for 67k
// floats, 5x this). Same state (AdamParamState), same save()/load(), same results to float
// rounding (tested against torch::optim::Adam). Falls back to Adam::step() for what it does
// not fuse: weight decay, AMSGrad, and parameters that are not contiguous float32.
class FusedAdam final : public torch::optim::Adam {
 public:
  using torch::optim::Adam::Adam;

  torch::Tensor step(LossClosure closure = nullptr) override;

 private:
  bool fusable() const;
};

}  // namespace mnrl::nn
