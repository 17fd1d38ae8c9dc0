#include "nn/q_network_blocks.h"

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "nn/actor_critic_blocks.h"

namespace mnrl::nn {

namespace {

at::Tensor apply_head(QHead& head, const at::Tensor& features) {
  return head.noisy.is_empty() ? head.linear->forward(features) : head.noisy->forward(features);
}

// Registers `head`'s layer as `name`, a fresh one of its shape where `fresh` (a clone's).
void register_head(torch::nn::Module& block, const std::string& name, QHead& head, bool fresh) {
  if (!head.noisy.is_empty()) {
    if (fresh) {
      const torch::nn::LinearOptions& shape = head.noisy->mean()->options;
      head.noisy = NoisyLinear(shape.in_features(), shape.out_features(), 0.0);
    }
    block.register_module(name, head.noisy);
  } else if (!head.linear.is_empty()) {
    if (fresh) head.linear = torch::nn::Linear(head.linear->options);
    block.register_module(name, head.linear);
  }
}

}  // namespace

NoisyTrunkLayerBlockImpl::NoisyTrunkLayerBlockImpl(NoisyLinear layer, Activation activation)
    : layer_(std::move(layer)), activation_(activation) {
  register_module("layer", layer_);
}

void NoisyTrunkLayerBlockImpl::reset() {
  // A clone's own layer (Cloneable copies the values in after reset()).
  const torch::nn::LinearOptions& shape = layer_->mean()->options;
  layer_ = register_module("layer", NoisyLinear(shape.in_features(), shape.out_features(), 0.0));
}

at::Tensor NoisyTrunkLayerBlockImpl::forward(const at::Tensor& x) {
  return apply_activation(activation_, layer_->forward(x));
}

QHeadsBlockImpl::QHeadsBlockImpl(QHead advantage, QHead value, std::int64_t num_actions,
                                 std::int64_t atoms)
    : advantage_(std::move(advantage)),
      value_(std::move(value)),
      num_actions_(num_actions),
      atoms_(atoms) {
  register_head(*this, "advantage", advantage_, false);
  register_head(*this, "value", value_, false);
}

void QHeadsBlockImpl::reset() {
  register_head(*this, "advantage", advantage_, true);
  register_head(*this, "value", value_, true);
}

at::Tensor QHeadsBlockImpl::forward(const at::Tensor& features) {
  const at::Tensor values = combine_q_heads(
      apply_head(advantage_, features),
      value_.empty() ? at::Tensor() : apply_head(value_, features), num_actions_, atoms_);
  return atoms_ == 1 ? values.squeeze(-1) : values;
}

torch::nn::Sequential q_network_blocks(const QNetwork& network) {
  const QNetworkOptions& options = network->options;
  if (options.quantile_embedding() > 0) {
    throw std::invalid_argument(
        "pipeline stages take DQN, Double, dueling, C51, QR-DQN and noisy networks, not IQN's "
        "(its quantile fractions enter mid-network)");
  }
  const bool noisy = options.noisy_sigma0() > 0;
  torch::nn::Sequential blocks;
  if (!network->encoder().is_empty()) blocks->push_back(EncoderBlock(network->encoder()));
  const auto& trunk = network->trunk();
  for (std::size_t i = 0; i < trunk->layers().size(); ++i) {
    if (noisy) {
      blocks->push_back(NoisyTrunkLayerBlock(trunk->noisy_layers()[i], options.activation()));
    } else {
      blocks->push_back(
          TrunkLayerBlock(trunk->layers()[i], torch::nn::Linear(nullptr), options.activation(), 0));
    }
  }
  const auto head = [&](const torch::nn::Linear& linear, const NoisyLinear& noisy_layer) {
    QHead h;
    if (noisy) {
      h.noisy = noisy_layer;
    } else {
      h.linear = linear;
    }
    return h;
  };
  blocks->push_back(QHeadsBlock(
      head(network->advantage_head(), network->noisy_advantage_head()),
      options.dueling() ? head(network->value_head(), network->noisy_value_head()) : QHead{},
      options.num_actions(), options.atoms()));
  return blocks;
}

std::vector<NoisyLinear> noisy_layers_in(const torch::nn::Module& module) {
  std::vector<NoisyLinear> layers;
  for (const auto& child : module.modules()) {
    if (auto noisy = std::dynamic_pointer_cast<NoisyLinearImpl>(child)) {
      layers.emplace_back(std::move(noisy));
    }
  }
  return layers;
}

}  // namespace mnrl::nn
