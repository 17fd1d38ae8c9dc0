#include "nn/conv_encoder_pass.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <ATen/TensorOperators.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/randn.h>
#include <torch/utils.h>

#include "nn/flat_parameters.h"
#include "nn/memory_views.h"
#include "nn/q_network_pass.h"

namespace mnrl::nn {
namespace {

struct EncoderCase {
  std::string name;
  ConvEncoderOptions options;
  std::int64_t batch;
};

void PrintTo(const EncoderCase& c, std::ostream* out) { *out << c.name; }

std::vector<EncoderCase> encoder_cases() {
  return {
      {"minatar", ConvEncoderOptions::minatar({4, 10, 10}), 5},
      {"minatar_one_row", ConvEncoderOptions::minatar({6, 10, 10}), 1},
      // Two layers with a stride: the first layer's input gradient (col2im) is exercised, with
      // patches that overlap.
      {"strided_two_layers",
       ConvEncoderOptions({3, 13, 11}).channels({5, 4}).kernel_sizes({4, 3}).strides({2, 1}).features(9),
       3},
      {"no_linear_layer",
       ConvEncoderOptions({2, 7, 7}).channels({3, 2}).kernel_sizes({3, 2}).strides({1, 2}).features(0),
       4},
  };
}

std::int64_t image_size(const ConvEncoderOptions& options) {
  const auto& shape = options.image_shape();
  return shape[0] * shape[1] * shape[2];
}

class ConvEncoderPassTest : public ::testing::TestWithParam<EncoderCase> {};

TEST_P(ConvEncoderPassTest, MatchesAutogradValuesAndGradients) {
  const EncoderCase& c = GetParam();
  torch::manual_seed(7);
  ConvEncoder encoder(c.options);
  FlatParameters parameters(*encoder);
  const at::Tensor observations = at::rand({c.batch, image_size(c.options)});
  const at::Tensor features_gradient = at::randn({c.batch, encoder->out_features()});

  // Autograd's values and gradients of loss = sum(features * features_gradient).
  const at::Tensor features = encoder->forward(observations);
  (features * features_gradient).sum().backward();
  const at::Tensor autograd_gradients = parameters.gradients().clone();
  parameters.gradients().fill_(123.0f);  // backward() must overwrite, not add

  ConvEncoderPass pass(encoder, c.batch);
  const at::Tensor pass_features = pass.forward(observations.data_ptr<float>()).clone();
  pass.features_gradient().copy_(features_gradient);
  pass.backward();

  EXPECT_TRUE(at::allclose(pass_features, features.detach(), 1e-5, 1e-5))
      << "max difference " << (pass_features - features.detach()).abs().max().item<float>();
  EXPECT_TRUE(at::allclose(parameters.gradients(), autograd_gradients, 1e-4, 1e-5))
      << "max difference "
      << (parameters.gradients() - autograd_gradients).abs().max().item<float>();
}

INSTANTIATE_TEST_SUITE_P(Encoders, ConvEncoderPassTest, ::testing::ValuesIn(encoder_cases()),
                         [](const auto& info) { return info.param.name; });

// A QNetwork over images: the encoder's features feed the trunk (or straight the heads, as in
// the MinAtar configs), and the heads' gradient flows back into the encoder.
TEST(ConvEncoderPassTest, QNetworkOverImagesMatchesAutograd) {
  for (const auto& hidden : {std::vector<std::int64_t>{}, std::vector<std::int64_t>{16}}) {
    for (bool dueling : {false, true}) {
      torch::manual_seed(8);
      const ConvEncoderOptions encoder = ConvEncoderOptions::minatar({4, 10, 10});
      QNetwork network(
          QNetworkOptions(400, 3).encoder(encoder).hidden_sizes(hidden).dueling(dueling));
      FlatParameters parameters(*network);
      const std::int64_t batch = 6;
      const at::Tensor observations = at::rand({batch, 400});
      const at::Tensor q_gradients = at::randn({batch, 3});

      const at::Tensor q = network->forward(observations);
      (q * q_gradients).sum().backward();
      const at::Tensor autograd_gradients = parameters.gradients().clone();
      parameters.gradients().fill_(123.0f);

      QNetworkPass pass(network, batch);
      const at::Tensor pass_q =
          view_floats(pass.forward(observations.data_ptr<float>()), batch, 3).clone();
      pass.backward(q_gradients.data_ptr<float>());

      SCOPED_TRACE("hidden layers " + std::to_string(hidden.size()) + ", dueling " +
                   std::to_string(dueling));
      EXPECT_TRUE(at::allclose(pass_q, q.detach(), 1e-5, 1e-5));
      EXPECT_TRUE(at::allclose(parameters.gradients(), autograd_gradients, 1e-4, 1e-5))
          << "max difference "
          << (parameters.gradients() - autograd_gradients).abs().max().item<float>();
    }
  }
}

}  // namespace
}  // namespace mnrl::nn
