#include "nn/conv_encoder.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/eye.h>
#include <ATen/ops/rand.h>
#include <c10/util/Exception.h>
#include <gtest/gtest.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "nn/actor_critic.h"
#include "nn/q_network.h"

namespace mnrl::nn {
namespace {

using ImageShape = std::vector<std::int64_t>;

at::Tensor make_tensor(const std::vector<float>& values, ImageShape shape) {
  at::Tensor t = at::empty(shape, at::kFloat);
  EXPECT_EQ(t.numel(), static_cast<std::int64_t>(values.size()));
  std::copy(values.begin(), values.end(), t.data_ptr<float>());
  return t;
}

// One conv + ReLU by explicit loops: input [C, H, W] (row-major), weight [O, C, k, k], no
// padding. Returns [O, H_out, W_out] row-major.
std::vector<float> conv_relu_by_loops(const std::vector<float>& input, std::int64_t c,
                                      std::int64_t h, std::int64_t w, const at::Tensor& weight,
                                      const at::Tensor& bias, std::int64_t stride) {
  const auto wt = weight.accessor<float, 4>();
  const auto b = bias.accessor<float, 1>();
  const std::int64_t out_channels = weight.size(0), k = weight.size(2);
  const std::int64_t ho = (h - k) / stride + 1, wo = (w - k) / stride + 1;
  std::vector<float> out;
  for (std::int64_t o = 0; o < out_channels; ++o) {
    for (std::int64_t y = 0; y < ho; ++y) {
      for (std::int64_t x = 0; x < wo; ++x) {
        double sum = b[o];
        for (std::int64_t i = 0; i < c; ++i) {
          for (std::int64_t dy = 0; dy < k; ++dy) {
            for (std::int64_t dx = 0; dx < k; ++dx) {
              const std::int64_t row = y * stride + dy, column = x * stride + dx;
              sum += wt[o][i][dy][dx] * input[(i * h + row) * w + column];
            }
          }
        }
        out.push_back(static_cast<float>(std::max(sum, 0.0)));
      }
    }
  }
  return out;
}

// Linear + ReLU by explicit loops.
std::vector<float> linear_relu_by_loops(const std::vector<float>& input, const at::Tensor& weight,
                                        const at::Tensor& bias) {
  const auto wt = weight.accessor<float, 2>();
  const auto b = bias.accessor<float, 1>();
  std::vector<float> out;
  for (std::int64_t o = 0; o < weight.size(0); ++o) {
    double sum = b[o];
    for (std::int64_t i = 0; i < weight.size(1); ++i) sum += wt[o][i] * input[i];
    out.push_back(static_cast<float>(std::max(sum, 0.0)));
  }
  return out;
}

// The message of the std::invalid_argument that building an encoder with `options` throws.
std::string refusal(const ConvEncoderOptions& options) {
  try {
    ConvEncoder encoder(options);
  } catch (const std::invalid_argument& e) {
    EXPECT_THROW(conv_output_shape(options), std::invalid_argument);
    return e.what();
  }
  ADD_FAILURE() << "no exception";
  return "";
}

// |W W^T - gain^2 I| is small, for W flattened to [rows, columns] with rows <= columns.
void expect_orthogonal_rows(const at::Tensor& weight, double gain) {
  const at::Tensor w = weight.detach().reshape({weight.size(0), -1});
  ASSERT_LE(w.size(0), w.size(1));
  const at::Tensor gram = w.mm(w.t());
  EXPECT_TRUE(at::allclose(gram, at::eye(w.size(0)) * (gain * gain), 1e-4, 1e-4))
      << "max error " << (gram - at::eye(w.size(0)) * (gain * gain)).abs().max().item<float>();
}

TEST(ConvEncoderTest, MinAtarPresetGives128Features) {
  torch::manual_seed(0);
  const auto options = ConvEncoderOptions::minatar({4, 10, 10});
  EXPECT_EQ(conv_output_shape(options), (ImageShape{16, 8, 8}));
  ConvEncoder encoder(options);
  EXPECT_EQ(encoder->conv_output_shape(), (ImageShape{16, 8, 8}));
  EXPECT_EQ(encoder->out_features(), 128);
  ASSERT_EQ(encoder->convs().size(), 1u);
  EXPECT_EQ(encoder->convs()[0]->weight.sizes(), (ImageShape{16, 4, 3, 3}));
  ASSERT_FALSE(encoder->linear().is_empty());
  EXPECT_EQ(encoder->linear()->weight.sizes(), (ImageShape{128, 16 * 8 * 8}));
  const auto parameters = encoder->named_parameters();
  EXPECT_EQ(parameters.size(), 4u);
  for (const char* name : {"conv0.weight", "conv0.bias", "linear.weight", "linear.bias"}) {
    EXPECT_TRUE(parameters.contains(name)) << name;
  }
  const at::Tensor features = encoder->forward(at::rand({3, 4 * 10 * 10}));
  EXPECT_EQ(features.sizes(), (ImageShape{3, 128}));
  EXPECT_GE(features.min().item<float>(), 0.0f);  // after a ReLU
}

TEST(ConvEncoderTest, NaturePresetGives512Features) {
  torch::manual_seed(0);
  const auto options = ConvEncoderOptions::nature({4, 84, 84});
  EXPECT_EQ(conv_output_shape(options), (ImageShape{64, 7, 7}));
  ConvEncoder encoder(options);
  EXPECT_EQ(encoder->out_features(), 512);
  ASSERT_EQ(encoder->convs().size(), 3u);
  EXPECT_EQ(encoder->convs()[0]->weight.sizes(), (ImageShape{32, 4, 8, 8}));
  EXPECT_EQ(encoder->convs()[1]->weight.sizes(), (ImageShape{64, 32, 4, 4}));
  EXPECT_EQ(encoder->convs()[2]->weight.sizes(), (ImageShape{64, 64, 3, 3}));
  EXPECT_EQ(encoder->linear()->weight.sizes(), (ImageShape{512, 64 * 7 * 7}));
  torch::NoGradGuard no_grad;
  EXPECT_EQ(encoder->forward(at::rand({2, 4 * 84 * 84})).sizes(), (ImageShape{2, 512}));
}

TEST(ConvEncoderTest, WithoutLinearLayerGivesFlattenedConvOutput) {
  torch::manual_seed(0);
  ConvEncoder encoder(ConvEncoderOptions::minatar({4, 10, 10}).features(0));
  EXPECT_TRUE(encoder->linear().is_empty());
  EXPECT_EQ(encoder->named_parameters().size(), 2u);
  EXPECT_EQ(encoder->out_features(), 16 * 8 * 8);
  torch::NoGradGuard no_grad;
  const at::Tensor x = at::rand({5, 400});
  EXPECT_EQ(encoder->forward(x).sizes(), (ImageShape{5, 1024}));
  // Leading dimensions are kept, as a linear layer keeps them; an empty batch is fine.
  EXPECT_TRUE(at::allclose(encoder->forward(x.reshape({5, 1, 400})).reshape({5, 1024}),
                           encoder->forward(x)));
  EXPECT_EQ(encoder->forward(at::rand({0, 400})).sizes(), (ImageShape{0, 1024}));
}

TEST(ConvEncoderTest, MatchesHandComputationOfTinyEncoder) {
  // One 2x2 conv, one channel in and out, stride 1, on a 3x3 image: a 2x2 output, flattened.
  ConvEncoder encoder(
      ConvEncoderOptions({1, 3, 3}).channels({1}).kernel_sizes({2}).strides({1}).features(0));
  ASSERT_EQ(encoder->out_features(), 4);
  const at::Tensor weight = make_tensor({1.0f, -2.0f, 0.5f, 3.0f}, {1, 1, 2, 2});
  const at::Tensor bias = make_tensor({-1.0f}, {1});
  {
    torch::NoGradGuard no_grad;
    encoder->convs()[0]->weight.copy_(weight);
    encoder->convs()[0]->bias.copy_(bias);
  }
  const std::vector<std::vector<float>> images = {
      {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f, 0.9f},
      {1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f}};
  std::vector<float> rows, expected;
  for (const auto& image : images) {
    rows.insert(rows.end(), image.begin(), image.end());
    const auto out = conv_relu_by_loops(image, 1, 3, 3, weight, bias, 1);
    expected.insert(expected.end(), out.begin(), out.end());
  }
  // By hand: the first image's top-left output is 0.1 - 2*0.2 + 0.5*0.4 + 3*0.5 - 1 = 0.4; the
  // second image's top-right one is 0.5*1 - 1 < 0 before the ReLU.
  const std::vector<float> by_hand = {0.4f, 0.65f, 1.15f, 1.4f, 3.0f, 0.0f, 0.0f, 3.0f};
  ASSERT_EQ(expected.size(), by_hand.size());
  for (std::size_t i = 0; i < by_hand.size(); ++i) EXPECT_NEAR(expected[i], by_hand[i], 1e-6) << i;
  const at::Tensor output = encoder->forward(make_tensor(rows, {2, 9}));
  EXPECT_TRUE(at::allclose(output, make_tensor(expected, {2, 4}), 1e-5, 1e-6))
      << output << make_tensor(expected, {2, 4});
}

TEST(ConvEncoderTest, MatchesLoopsWithChannelsStrideAndLinearLayer) {
  // A non-square 2-channel image, a strided conv with 3 channels out, then a linear layer: checks
  // the [C, H, W] reading of rows and the channel-major flattening.
  torch::manual_seed(1);
  ConvEncoder encoder(
      ConvEncoderOptions({2, 5, 6}).channels({3}).kernel_sizes({3}).strides({2}).features(4));
  ASSERT_EQ(encoder->conv_output_shape(), (ImageShape{3, 2, 2}));
  const auto& conv = encoder->convs()[0];
  const auto& linear = encoder->linear();
  const at::Tensor x = at::rand({3, 2 * 5 * 6});
  std::vector<float> expected;
  for (std::int64_t b = 0; b < x.size(0); ++b) {
    const at::Tensor row = x[b].contiguous();
    const std::vector<float> image(row.data_ptr<float>(), row.data_ptr<float>() + row.numel());
    const auto conv_out =
        conv_relu_by_loops(image, 2, 5, 6, conv->weight.detach(), conv->bias.detach(), 2);
    const auto out = linear_relu_by_loops(conv_out, linear->weight.detach(), linear->bias.detach());
    expected.insert(expected.end(), out.begin(), out.end());
  }
  torch::NoGradGuard no_grad;
  EXPECT_TRUE(at::allclose(encoder->forward(x), make_tensor(expected, {3, 4}), 1e-5, 1e-6));
}

TEST(ConvEncoderTest, GradientsReachEveryParameter) {
  torch::manual_seed(0);
  for (const auto& options :
       {ConvEncoderOptions::minatar({4, 10, 10}), ConvEncoderOptions({3, 12, 12})
                                                      .channels({8, 8})
                                                      .kernel_sizes({3, 3})
                                                      .strides({2, 1})
                                                      .features(16)}) {
    ConvEncoder encoder(options);
    const auto& image = options.image_shape();
    encoder->forward(at::rand({4, image[0] * image[1] * image[2]})).sum().backward();
    for (const auto& parameter : encoder->named_parameters()) {
      const at::Tensor grad = parameter.value().grad();
      ASSERT_TRUE(grad.defined()) << parameter.key();
      EXPECT_GT(grad.abs().sum().item<float>(), 0.0f) << parameter.key();
    }
  }
}

TEST(ConvEncoderTest, RefusesInvalidOptions) {
  EXPECT_EQ(refusal(ConvEncoderOptions({10, 10})),
            "ConvEncoder: image_shape must be 3 values {C, H, W}, each >= 1, got [10, 10]");
  EXPECT_EQ(refusal(ConvEncoderOptions({4, 0, 10})),
            "ConvEncoder: image_shape must be 3 values {C, H, W}, each >= 1, got [4, 0, 10]");
  EXPECT_EQ(refusal(ConvEncoderOptions({4, 84, 84}).strides({4, 2})),
            "ConvEncoder: channels, kernel_sizes and strides need one value per conv layer, got "
            "3, 3 and 2 values");
  EXPECT_EQ(refusal(ConvEncoderOptions({4, 84, 84}).channels({}).kernel_sizes({}).strides({})),
            "ConvEncoder: needs at least one conv layer (channels is empty)");
  EXPECT_EQ(refusal(ConvEncoderOptions::minatar({4, 10, 10}).features(-1)),
            "ConvEncoder: features must be >= 0 (0: no linear layer), got -1");
  EXPECT_EQ(refusal(ConvEncoderOptions::nature({4, 84, 84}).channels({32, 0, 64})),
            "ConvEncoder: conv layer 1: channels must be >= 1, got 0");
  EXPECT_EQ(refusal(ConvEncoderOptions::nature({4, 84, 84}).kernel_sizes({8, 4, 0})),
            "ConvEncoder: conv layer 2: kernel size must be >= 1, got 0");
  EXPECT_EQ(refusal(ConvEncoderOptions::minatar({4, 10, 10}).strides({0})),
            "ConvEncoder: conv layer 0: stride must be >= 1, got 0");
  // The first kernel larger than the image.
  EXPECT_EQ(refusal(ConvEncoderOptions::nature({4, 6, 84})),
            "ConvEncoder: conv layer 0: kernel 8 does not fit a 6x84 input (image [4, 6, 84])");
  // Nature's network on MinAtar's 10x10 images: 10 -> 1 (8x8, stride 4) -> the 4x4 kernel.
  EXPECT_EQ(refusal(ConvEncoderOptions::nature({4, 10, 10})),
            "ConvEncoder: conv layer 1: kernel 4 does not fit a 1x1 input (image [4, 10, 10] "
            "after conv layers 0-0 with kernels [8] and strides [4])");
  EXPECT_EQ(refusal(ConvEncoderOptions({4, 10, 10})
                        .channels({8, 8, 8})
                        .kernel_sizes({3, 3, 8})
                        .strides({1, 2, 1})),
            "ConvEncoder: conv layer 2: kernel 8 does not fit a 3x3 input (image [4, 10, 10] "
            "after conv layers 0-1 with kernels [3, 3] and strides [1, 2])");
}

TEST(ConvEncoderTest, ForwardRefusesRowsOfTheWrongWidth) {
  ConvEncoder encoder(ConvEncoderOptions::minatar({4, 10, 10}));
  EXPECT_THROW(encoder->forward(at::rand({2, 399})), c10::Error);
  EXPECT_THROW(encoder->forward(at::rand({2, 4, 10, 10})), c10::Error);
}

TEST(ConvEncoderTest, OrthogonalInitGivesOrthonormalRowsAndZeroBiases) {
  torch::manual_seed(0);
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(4, 16, 3));  // weight [16, 4*3*3 = 36]
  orthogonal_init(conv, std::sqrt(2.0));
  expect_orthogonal_rows(conv->weight, std::sqrt(2.0));
  EXPECT_EQ(conv->bias.abs().sum().item<float>(), 0.0f);

  // The encoder's method: every conv and the linear layer.
  ConvEncoder encoder(ConvEncoderOptions({4, 10, 10})
                          .channels({16, 32})
                          .kernel_sizes({3, 3})
                          .strides({1, 1})
                          .features(64));
  encoder->orthogonal_init(1.5);
  for (const auto& layer : encoder->convs()) expect_orthogonal_rows(layer->weight, 1.5);
  expect_orthogonal_rows(encoder->linear()->weight, 1.5);
  for (const auto& parameter : encoder->named_parameters()) {
    if (parameter.key().find("bias") == std::string::npos) continue;
    EXPECT_EQ(parameter.value().abs().sum().item<float>(), 0.0f) << parameter.key();
  }
}

// The networks agents train on images: the encoder's features feed the trunks and heads.
TEST(ConvEncoderTest, ActorCriticAndQNetworkTakeImagesThroughTheEncoder) {
  const auto encoder = ConvEncoderOptions::minatar({4, 10, 10});
  ActorCritic model(ActorCriticOptions(400, 3).encoder(encoder).hidden_sizes({}));
  const PolicyValue output = model->forward(at::rand({5, 400}));
  EXPECT_EQ(output.policy.sizes(), (std::vector<std::int64_t>{5, 3}));
  EXPECT_EQ(output.value.sizes(), (std::vector<std::int64_t>{5}));
  EXPECT_EQ(output.features.size(1), 128) << "the encoder's features, through an empty trunk";
  ASSERT_FALSE(model->encoder().is_empty());
  // One encoder for both heads, orthogonally initialized as the trunks are.
  int encoders = 0;
  for (const auto& parameter : model->named_parameters()) {
    encoders += parameter.key().rfind("encoder.", 0) == 0;
  }
  EXPECT_EQ(encoders, 4) << "conv0 and linear, weight and bias, once";
  expect_orthogonal_rows(model->encoder()->convs()[0]->weight, std::sqrt(2.0));
  // The value gets its gradient through the shared encoder.
  model->value(at::rand({2, 400})).sum().backward();
  EXPECT_GT(model->encoder()->convs()[0]->weight.grad().abs().sum().item<float>(), 0.0f);

  QNetwork q(QNetworkOptions(400, 6).encoder(encoder).hidden_sizes({}));
  EXPECT_EQ(q->forward(at::rand({7, 400})).sizes(), (std::vector<std::int64_t>{7, 6}));
  EXPECT_EQ(q->trunk()->out_features(), 128);
}

}  // namespace
}  // namespace mnrl::nn
