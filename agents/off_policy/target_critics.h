#pragma once

#include <memory>
#include <vector>

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>

#include "nn/continuous_q_network.h"
#include "nn/flat_parameters.h"

namespace mnrl::agents {

// target = (1 - tau) target + tau online, in place (a copy where tau >= 1): Polyak averaging.
void follow(at::Tensor target, const at::Tensor& online, double tau);

// The target networks of one or two critics (SB3's critic_target): copies of the online
// critics, on their device, that follow them by Polyak averaging, in one flat buffer.
class TargetCritics {
 public:
  // `online_values`: the online critics' parameters, in their order (a range of the agent's
  // flat buffer). The targets start as copies.
  TargetCritics(const std::vector<nn::ContinuousQNetwork>& online, at::Tensor online_values);

  const std::vector<nn::ContinuousQNetwork>& networks() const { return networks_; }
  void update(double tau) { follow(parameters_->values(), online_values_, tau); }
  // Their parameters, for checkpoints.
  const at::Tensor& values() const { return parameters_->values(); }

 private:
  std::vector<nn::ContinuousQNetwork> networks_;
  std::shared_ptr<torch::nn::Module> module_;
  std::unique_ptr<nn::FlatParameters> parameters_;
  at::Tensor online_values_;
};

}  // namespace mnrl::agents
