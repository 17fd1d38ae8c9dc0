#include "nn/q_network_blocks.h"

#include <stdexcept>
#include <utility>

#include "nn/actor_critic_blocks.h"

namespace mnrl::nn {

QHeadsBlockImpl::QHeadsBlockImpl(torch::nn::Linear advantage, torch::nn::Linear value,
                                 std::int64_t num_actions, std::int64_t atoms)
    : advantage_(std::move(advantage)),
      value_(std::move(value)),
      num_actions_(num_actions),
      atoms_(atoms) {
  register_module("advantage", advantage_);
  if (!value_.is_empty()) register_module("value", value_);
}

void QHeadsBlockImpl::reset() {
  advantage_ = register_module("advantage", torch::nn::Linear(advantage_->options));
  if (!value_.is_empty()) value_ = register_module("value", torch::nn::Linear(value_->options));
}

at::Tensor QHeadsBlockImpl::forward(const at::Tensor& features) {
  const at::Tensor values = combine_q_heads(
      advantage_->forward(features), value_.is_empty() ? at::Tensor() : value_->forward(features),
      num_actions_, atoms_);
  return atoms_ == 1 ? values.squeeze(-1) : values;
}

torch::nn::Sequential q_network_blocks(const QNetwork& network) {
  const QNetworkOptions& options = network->options;
  if (options.quantile_embedding() > 0 || options.noisy_sigma0() > 0) {
    throw std::invalid_argument(
        "pipeline stages take DQN, Double, dueling, C51 and QR-DQN networks, not IQN's (its "
        "quantile fractions enter mid-network) or noisy nets (dqn.noisy: their noise is drawn "
        "per network)");
  }
  torch::nn::Sequential blocks;
  if (!network->encoder().is_empty()) blocks->push_back(EncoderBlock(network->encoder()));
  for (const auto& layer : network->trunk()->layers()) {
    blocks->push_back(TrunkLayerBlock(layer, torch::nn::Linear(nullptr), options.activation(), 0));
  }
  blocks->push_back(
      QHeadsBlock(network->advantage_head(),
                  options.dueling() ? network->value_head() : torch::nn::Linear(nullptr),
                  options.num_actions(), options.atoms()));
  return blocks;
}

}  // namespace mnrl::nn
