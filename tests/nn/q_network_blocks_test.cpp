// A Q-network cut into blocks (for pipeline stages) computes what the network computes, over its
// own parameters and with its gradients; a clone of the blocks (PipeDream's stash) holds copies.
#include "nn/q_network_blocks.h"

#include <ATen/ops/rand.h>
#include <ATen/ops/randn.h>
#include <gtest/gtest.h>
#include <torch/utils.h>

#include <set>
#include <string>
#include <vector>

namespace mnrl::nn {
namespace {

struct QCase {
  std::string name;
  QNetworkOptions options;
};

std::vector<QCase> q_cases() {
  return {
      {"DQN", QNetworkOptions(6, 3).hidden_sizes({16, 8})},
      {"dueling", QNetworkOptions(6, 3).hidden_sizes({16}).dueling(true)},
      {"no trunk, tanh", QNetworkOptions(6, 3).hidden_sizes({}).activation(Activation::tanh)},
      {"C51, dueling", QNetworkOptions(6, 4).hidden_sizes({16, 16}).dueling(true).atoms(11)},
      {"QR-DQN, conv encoder", QNetworkOptions(2 * 5 * 5, 4)
                                   .hidden_sizes({16})
                                   .atoms(5)
                                   .encoder(ConvEncoderOptions::minatar({2, 5, 5}).features(32))},
      {"noisy", QNetworkOptions(6, 3).hidden_sizes({16, 8}).noisy_sigma0(0.5)},
      {"Rainbow's: noisy, dueling C51, conv encoder",
       QNetworkOptions(2 * 5 * 5, 4)
           .hidden_sizes({16})
           .atoms(11)
           .dueling(true)
           .noisy_sigma0(0.5)
           .encoder(ConvEncoderOptions::minatar({2, 5, 5}).features(32))},
  };
}

std::set<const void*> storages_of(const std::vector<at::Tensor>& parameters) {
  std::set<const void*> pointers;
  for (const auto& p : parameters) pointers.insert(p.data_ptr());
  return pointers;
}

TEST(QNetworkBlocksTest, TheChainComputesTheNetworksOutputsWithItsParameters) {
  for (const QCase& c : q_cases()) {
    SCOPED_TRACE(c.name);
    torch::manual_seed(5);
    QNetwork network(c.options);
    torch::nn::Sequential blocks = q_network_blocks(network);
    EXPECT_EQ(blocks->size(), c.options.hidden_sizes().size() + 1 + (c.options.encoder() ? 1 : 0));
    const auto parameters = blocks->parameters();
    EXPECT_EQ(parameters.size(), network->parameters().size());
    EXPECT_EQ(storages_of(parameters), storages_of(network->parameters()));
    // Noisy nets: the chain's noisy layers are the network's, in its noise layout's order, so
    // noise set through either is the other's.
    const auto noisy = noisy_layers_in(*blocks);
    ASSERT_EQ(noisy.size(), network->noisy_layers().size());
    for (std::size_t i = 0; i < noisy.size(); ++i) {
      EXPECT_EQ(noisy[i].get(), network->noisy_layers()[i].get()) << i;
    }
    if (!noisy.empty()) {
      set_layer_noise(noisy, at::randn({network->noise_size()}));
      EXPECT_GT(network->noisy_layers().front()->input_noise().abs().sum().item<float>(), 0.0f);
    }

    const at::Tensor observations = at::rand({7, c.options.observation_size()});
    const at::Tensor expected = network->forward(observations);
    const at::Tensor got = blocks->forward(observations);
    ASSERT_EQ(got.sizes(), expected.sizes());
    EXPECT_TRUE(got.equal(expected));

    // The same loss through either gives the same .grad.
    const at::Tensor weights = at::rand(expected.sizes());
    network->zero_grad();
    (network->forward(observations) * weights).sum().backward();
    std::vector<at::Tensor> through_network;
    for (const auto& p : network->parameters()) through_network.push_back(p.grad().clone());
    network->zero_grad();
    (blocks->forward(observations) * weights).sum().backward();
    const auto network_parameters = network->parameters();
    for (std::size_t i = 0; i < network_parameters.size(); ++i) {
      EXPECT_TRUE(network_parameters[i].grad().equal(through_network[i])) << i;
    }

    auto copy = std::dynamic_pointer_cast<torch::nn::SequentialImpl>(blocks->clone());
    ASSERT_TRUE(copy);
    EXPECT_TRUE(copy->forward(observations).equal(expected));  // noise included
    const auto copied = storages_of(copy->parameters());
    for (const void* pointer : storages_of(parameters)) EXPECT_EQ(copied.count(pointer), 0u);
  }
}

TEST(QNetworkBlocksTest, IqnIsRefused) {
  EXPECT_THROW(q_network_blocks(QNetwork(QNetworkOptions(4, 2).quantile_embedding(8).atoms(1))),
               std::invalid_argument);
}

}  // namespace
}  // namespace mnrl::nn
