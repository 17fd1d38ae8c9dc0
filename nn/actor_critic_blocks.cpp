#include "nn/actor_critic_blocks.h"

#include <ATen/ops/cat.h>
#include <ATen/ops/zeros_like.h>

#include <stdexcept>

#include "nn/categorical.h"
#include "nn/diag_gaussian.h"
#include "nn/squashed_diag_gaussian.h"

namespace mnrl::nn {

EncoderBlockImpl::EncoderBlockImpl(ConvEncoder encoder) : encoder_(std::move(encoder)) {
  register_module("encoder", encoder_);
}

void EncoderBlockImpl::reset() {
  encoder_ = register_module("encoder", ConvEncoder(encoder_->options));
}

at::Tensor EncoderBlockImpl::forward(const at::Tensor& observations) {
  return encoder_->forward(observations);
}

TrunkLayerBlockImpl::TrunkLayerBlockImpl(torch::nn::Linear policy, torch::nn::Linear value,
                                         Activation activation, std::int64_t policy_columns)
    : policy_(std::move(policy)),
      value_(std::move(value)),
      activation_(activation),
      policy_columns_(policy_columns) {
  register_module("policy", policy_);
  if (!value_.is_empty()) register_module("value", value_);
}

void TrunkLayerBlockImpl::reset() {
  policy_ = register_module("policy", torch::nn::Linear(policy_->options));
  if (!value_.is_empty()) value_ = register_module("value", torch::nn::Linear(value_->options));
}

at::Tensor TrunkLayerBlockImpl::forward(const at::Tensor& x) {
  if (value_.is_empty()) return apply_activation(activation_, policy_->forward(x));
  const bool split = policy_columns_ > 0;
  const at::Tensor policy_in = split ? x.narrow(1, 0, policy_columns_) : x;
  const at::Tensor value_in =
      split ? x.narrow(1, policy_columns_, x.size(1) - policy_columns_) : x;
  return at::cat({apply_activation(activation_, policy_->forward(policy_in)),
                  apply_activation(activation_, value_->forward(value_in))},
                 1);
}

HeadsBlockImpl::HeadsBlockImpl(torch::nn::Linear policy, torch::nn::Linear value,
                               at::Tensor log_std, std::int64_t policy_columns)
    : policy_(std::move(policy)),
      value_(std::move(value)),
      log_std_(std::move(log_std)),
      policy_columns_(policy_columns) {
  register_module("policy", policy_);
  register_module("value", value_);
  if (log_std_.defined()) register_parameter("log_std", log_std_);
}

void HeadsBlockImpl::reset() {
  policy_ = register_module("policy", torch::nn::Linear(policy_->options));
  value_ = register_module("value", torch::nn::Linear(value_->options));
  if (log_std_.defined()) log_std_ = register_parameter("log_std", at::zeros_like(log_std_));
}

at::Tensor HeadsBlockImpl::forward(const at::Tensor& x) {
  const bool split = policy_columns_ > 0;
  const at::Tensor policy_in = split ? x.narrow(1, 0, policy_columns_) : x;
  const at::Tensor value_in =
      split ? x.narrow(1, policy_columns_, x.size(1) - policy_columns_) : x;
  std::vector<at::Tensor> columns{policy_->forward(policy_in), value_->forward(value_in)};
  if (log_std_.defined()) columns.push_back(log_std_.unsqueeze(0).expand({x.size(0), -1}));
  return at::cat(columns, 1);
}

torch::nn::Sequential actor_critic_blocks(const ActorCritic& model) {
  if (model->recurrent() || model->options.use_sde()) {
    throw std::invalid_argument(
        "pipeline stages take memoryless actor-critics without gSDE (network.recurrent and "
        "use_sde keep state that does not cut into stages)");
  }
  torch::nn::Sequential blocks;
  if (!model->encoder().is_empty()) blocks->push_back(EncoderBlock(model->encoder()));
  const auto& policy_layers = model->policy_trunk()->layers();
  const bool separate = !model->value_trunk().is_empty();
  const Activation activation = model->options.activation();
  std::int64_t policy_columns = 0;  // the first layer takes the whole input
  for (std::size_t i = 0; i < policy_layers.size(); ++i) {
    const torch::nn::Linear value =
        separate ? model->value_trunk()->layers()[i] : torch::nn::Linear(nullptr);
    blocks->push_back(TrunkLayerBlock(policy_layers[i], value, activation, policy_columns));
    if (separate) policy_columns = policy_layers[i]->options.out_features();
  }
  blocks->push_back(HeadsBlock(model->policy_head(), model->value_head(), model->log_std(),
                               policy_columns));
  return blocks;
}

ChainOutput chain_output(const ActorCriticImpl& model, const at::Tensor& output) {
  const std::int64_t actions = model.options.action_size();
  ChainOutput split;
  split.output.policy = output.narrow(1, 0, actions);
  split.output.value = output.select(1, actions);
  if (!model.options.continuous()) {
    split.distribution = std::make_unique<Categorical>(split.output.policy);
    return split;
  }
  const at::Tensor log_std = output.narrow(1, actions + 1, actions);
  if (model.options.squash()) {
    split.distribution = std::make_unique<SquashedDiagGaussian>(split.output.policy, log_std);
  } else {
    split.distribution = std::make_unique<DiagGaussian>(split.output.policy, log_std);
  }
  return split;
}

}  // namespace mnrl::nn
