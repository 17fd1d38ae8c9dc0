#include "agents/off_policy/target_critics.h"

#include <string>

#include <torch/utils.h>

#include "agents/off_policy/off_policy_networks.h"

namespace mnrl::agents {

void follow(at::Tensor target, const at::Tensor& online, double tau) {
  torch::NoGradGuard no_grad;
  if (tau >= 1.0) {
    target.copy_(online);
  } else {
    target.mul_(1.0 - tau).add_(online, tau);
  }
}

TargetCritics::TargetCritics(const std::vector<nn::ContinuousQNetwork>& online,
                             at::Tensor online_values)
    : module_(std::make_shared<torch::nn::Module>()), online_values_(std::move(online_values)) {
  for (std::size_t i = 0; i < online.size(); ++i) {
    networks_.push_back(
        module_->register_module("critic" + std::to_string(i), same_critic(online[i])));
  }
  module_->to(online_values_.device());
  parameters_ = std::make_unique<nn::FlatParameters>(*module_);
  follow(parameters_->values(), online_values_, 1.0);
}

}  // namespace mnrl::agents
