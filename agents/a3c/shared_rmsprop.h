#pragma once

#include <memory>
#include <shared_mutex>

#include <ATen/core/Tensor.h>
#include <torch/optim/optimizer.h>
#include <torch/optim/rmsprop.h>

namespace mnrl::agents {

// The model every A3C worker learns into: flat parameters and RMSprop's running average of
// squared gradients, both shared (ChainerRL's shared RMSprop).
//
// Concurrency: updates from several workers run at once without ordering (Hogwild, Recht et al.
// 2011); that lock-free write is the one data race A3C accepts by design. A worker's copy of
// the parameters must not see a half-applied update, so updates hold `lock` shared (any number
// at once) and copies hold it exclusively.
struct SharedModel {
  at::Tensor parameters;  // flat, no gradient
  at::Tensor square_avg;  // same shape
  std::shared_mutex lock;

  explicit SharedModel(const at::Tensor& initial_parameters);
  // Copies the shared parameters into `local` (flat, same size), as one consistent snapshot.
  void copy_to(const at::Tensor& local);
};

// torch's RMSprop step (non-centered, no momentum, no weight decay) op for op, in place, on
// `parameters` and `square_avg` with gradient `grad` (all of one shape).
void rmsprop_update(const at::Tensor& parameters, const at::Tensor& square_avg,
                    const at::Tensor& grad, double lr, double alpha, double eps);

// An optimizer for one worker: step() reads the gradients of the worker's local flat
// parameters, applies torch's RMSprop update (non-centered, no momentum) to the shared
// parameters and statistics, then copies the shared parameters back into the local ones. With
// one worker this is exactly torch::optim::RMSprop on the worker's parameters.
class SharedRmsprop final : public torch::optim::Optimizer {
 public:
  SharedRmsprop(const at::Tensor& local_parameters, std::shared_ptr<SharedModel> shared,
                const torch::optim::RMSpropOptions& options);

  at::Tensor step(LossClosure closure = nullptr) override;

 private:
  at::Tensor local_;
  std::shared_ptr<SharedModel> shared_;
};

}  // namespace mnrl::agents
