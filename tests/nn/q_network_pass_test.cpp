#include "nn/q_network_pass.h"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include <ATen/TensorOperators.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/randn.h>
#include <torch/utils.h>

#include "nn/flat_parameters.h"
#include "nn/memory_views.h"

namespace mnrl::nn {
namespace {

// (activation, dueling, hidden sizes)
using QNetworkShape = std::tuple<Activation, bool, std::vector<std::int64_t>>;

class QNetworkPassTest : public ::testing::TestWithParam<QNetworkShape> {};

TEST_P(QNetworkPassTest, MatchesAutogradValuesAndGradients) {
  const auto& [activation, dueling, hidden] = GetParam();
  torch::manual_seed(3);
  QNetwork network(
      QNetworkOptions(5, 3).hidden_sizes(hidden).activation(activation).dueling(dueling));
  FlatParameters parameters(*network);
  const std::int64_t batch = 7;
  const at::Tensor observations = at::randn({batch, 5});
  const at::Tensor q_gradients = at::randn({batch, 3});

  // Autograd's values and gradients of loss = sum(Q * q_gradients).
  const at::Tensor q = network->forward(observations);
  (q * q_gradients).sum().backward();
  const at::Tensor autograd_gradients = parameters.gradients().clone();
  parameters.gradients().fill_(123.0f);  // backward() must overwrite, not add

  QNetworkPass pass(network, batch);
  const at::Tensor pass_q =
      view_floats(pass.forward(observations.data_ptr<float>()), batch, 3).clone();
  pass.backward(q_gradients.data_ptr<float>());

  EXPECT_TRUE(at::allclose(pass_q, q.detach(), 1e-5, 1e-5));
  EXPECT_TRUE(at::allclose(parameters.gradients(), autograd_gradients, 1e-4, 1e-5))
      << "max difference "
      << (parameters.gradients() - autograd_gradients).abs().max().item<float>();
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, QNetworkPassTest,
    ::testing::Values(QNetworkShape{Activation::relu, false, {16, 16}},
                      QNetworkShape{Activation::relu, true, {16, 8}},
                      QNetworkShape{Activation::tanh, false, {16}},
                      QNetworkShape{Activation::tanh, true, {8, 8, 8}},
                      QNetworkShape{Activation::relu, true, {}}));

TEST(QNetworkPassTest, FollowsInPlaceParameterUpdates) {
  torch::manual_seed(4);
  QNetwork network(QNetworkOptions(3, 2).hidden_sizes({8}));
  FlatParameters parameters(*network);
  QNetworkPass pass(network, 2);
  const at::Tensor observations = at::randn({2, 3});
  {
    torch::NoGradGuard no_grad;
    parameters.values().mul_(0.5f);  // as an optimizer step does
  }
  const at::Tensor expected = network->forward(observations).detach();
  EXPECT_TRUE(at::allclose(view_floats(pass.forward(observations.data_ptr<float>()), 2, 2),
                           expected, 1e-5, 1e-6));
}

// One row takes another path (a matrix-vector product); both heads go through it.
TEST(QNetworkPassTest, OneRowMatchesTheModule) {
  torch::manual_seed(5);
  QNetwork network(QNetworkOptions(4, 3).hidden_sizes({16, 16}).dueling(true));
  FlatParameters parameters(*network);
  QNetworkPass pass(network, 1);
  const at::Tensor observation = at::randn({1, 4});
  const at::Tensor expected = network->forward(observation).detach();
  EXPECT_TRUE(at::allclose(view_floats(pass.forward(observation.data_ptr<float>()), 1, 3),
                           expected, 1e-5, 1e-6));
}

// One row through noisy layers goes by the layers' factors instead of their effective weights,
// forward and backward: the same values and gradients (sigmas too) as autograd's.
TEST(QNetworkPassTest, OneNoisyRowMatchesAutograd) {
  torch::manual_seed(6);
  QNetwork network(
      QNetworkOptions(4, 3).hidden_sizes({16, 8}).dueling(true).atoms(5).noisy_sigma0(0.5));
  FlatParameters parameters(*network);
  {
    torch::NoGradGuard no_grad;
    network->set_noise(at::randn({network->noise_size()}));
  }
  const at::Tensor observation = at::randn({1, 4});
  const at::Tensor q_gradients = at::randn({1, 3, 5});
  const at::Tensor q = network->forward(observation);
  (q * q_gradients).sum().backward();
  const at::Tensor autograd_gradients = parameters.gradients().clone();
  parameters.gradients().fill_(123.0f);

  QNetworkPass pass(network, 1);
  EXPECT_TRUE(at::allclose(view_floats(pass.forward(observation.data_ptr<float>()), 1, 15),
                           q.detach().view({1, 15}), 1e-5, 1e-6));
  pass.backward(q_gradients.data_ptr<float>());
  EXPECT_TRUE(at::allclose(parameters.gradients(), autograd_gradients, 1e-4, 1e-5))
      << "max difference "
      << (parameters.gradients() - autograd_gradients).abs().max().item<float>();
}

TEST(QNetworkPassTest, RefusesAnEmptyBatch) {
  QNetwork network(QNetworkOptions(3, 2));
  EXPECT_THROW(QNetworkPass(network, 0), std::invalid_argument);
}

}  // namespace
}  // namespace mnrl::nn
