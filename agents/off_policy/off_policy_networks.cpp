#include "agents/off_policy/off_policy_networks.h"

#include <ATen/ops/full.h>

#include <string>

#include "nn/capturable_adam.h"
#include "nn/fused_adam.h"

namespace mnrl::agents {
namespace {

std::int64_t parameter_count(const torch::nn::Module& module) {
  std::int64_t count = 0;
  for (const auto& p : module.parameters()) count += p.numel();
  return count;
}

}  // namespace

OffPolicyNetworks::OffPolicyNetworks(std::vector<nn::ContinuousQNetwork> critics,
                                     nn::ContinuousActor actor,
                                     std::optional<double> initial_log_alpha)
    : critics_(std::move(critics)), actor_(std::move(actor)) {
  // Registration order is the flat buffer's layout.
  for (std::size_t i = 0; i < critics_.size(); ++i) {
    register_module("critic" + std::to_string(i), critics_[i]);
    critic_parameters_ += parameter_count(*critics_[i]);
  }
  register_module("actor", actor_);
  actor_parameters_ = parameter_count(*actor_);
  if (initial_log_alpha) {
    // In a child of its own: Module::parameters() lists a module's own parameters before its
    // children's, which would put log alpha first.
    auto entropy = register_module("entropy", std::make_shared<torch::nn::Module>());
    log_alpha_ = entropy->register_parameter("log_alpha", at::full({1}, *initial_log_alpha));
  }
}

OffPolicyNetworks::Range OffPolicyNetworks::critics_range() const { return {0, critic_parameters_}; }

OffPolicyNetworks::Range OffPolicyNetworks::actor_range() const {
  return {critic_parameters_, actor_parameters_};
}

OffPolicyNetworks::Range OffPolicyNetworks::log_alpha_range() const {
  return {critic_parameters_ + actor_parameters_, has_log_alpha() ? 1 : 0};
}

std::unique_ptr<torch::optim::Optimizer> adam_over(const nn::FlatParameters& parameters,
                                                   OffPolicyNetworks::Range range,
                                                   double learning_rate) {
  const std::vector<at::Tensor> segment{parameters.segment(range.offset, range.count)};
  const auto options = torch::optim::AdamOptions(learning_rate);
  if (segment[0].is_cpu()) return std::make_unique<nn::FusedAdam>(segment, options);
  return std::make_unique<nn::CapturableAdam>(segment, options);
}

nn::ContinuousQNetwork same_critic(const nn::ContinuousQNetwork& critic) {
  return nn::ContinuousQNetwork(critic->options);
}

}  // namespace mnrl::agents
