#pragma once

#include <torch/arg.h>
#include <torch/nn/cloneable.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace mnrl::nn {

struct ConvEncoderOptions {
  // `image_shape`: an observation's {C, H, W} (channels first). The other fields default to the
  // Nature CNN (see nature()).
  explicit ConvEncoderOptions(std::vector<std::int64_t> image_shape)
      : image_shape_(std::move(image_shape)) {}

  // One conv of 16 channels, 3x3, stride 1, then 128 features: the MinAtar paper's network
  // (Young & Tian 2019), for 10x10 MinAtar images.
  static ConvEncoderOptions minatar(std::vector<std::int64_t> image_shape);
  // Convs 32@8x8 stride 4, 64@4x4 stride 2, 64@3x3 stride 1, then 512 features: the DQN
  // Nature paper's network (Mnih et al. 2015), SB3's NatureCNN, for 84x84 Atari frames.
  static ConvEncoderOptions nature(std::vector<std::int64_t> image_shape);

  TORCH_ARG(std::vector<std::int64_t>, image_shape);
  // Output channels, kernel size (square) and stride of each conv layer, one value per layer.
  // No padding; every conv is followed by a ReLU.
  TORCH_ARG(std::vector<std::int64_t>, channels) = std::vector<std::int64_t>{32, 64, 64};
  TORCH_ARG(std::vector<std::int64_t>, kernel_sizes) = std::vector<std::int64_t>{8, 4, 3};
  TORCH_ARG(std::vector<std::int64_t>, strides) = std::vector<std::int64_t>{4, 2, 1};
  // Width of the linear layer (+ ReLU) after flattening; 0: none, the flattened conv output is
  // the feature vector.
  TORCH_ARG(std::int64_t, features) = 512;
};

// {C_out, H_out, W_out} of the last conv layer. Throws std::invalid_argument when the options
// do not describe a valid encoder (the same checks as ConvEncoderImpl's constructor).
std::vector<std::int64_t> conv_output_shape(const ConvEncoderOptions& options);

// Images -> feature vectors: conv + ReLU layers, flattened (channel-major, as torch.flatten),
// then optionally linear + ReLU. Layers keep LibTorch's default initialization until
// orthogonal_init() is called.
class ConvEncoderImpl : public torch::nn::Cloneable<ConvEncoderImpl> {
 public:
  // Throws std::invalid_argument on invalid options (see conv_output_shape).
  explicit ConvEncoderImpl(ConvEncoderOptions options);
  // (Re)makes the layers from the options (LibTorch's Cloneable: clone() copies them then).
  void reset() override;

  // [..., C*H*W] float rows (images flattened channel-first, already scaled, e.g. to [0, 1])
  // -> [..., out_features()].
  at::Tensor forward(const at::Tensor& flat_observations);

  // Width of forward()'s output: features, or C_out*H_out*W_out without a linear layer.
  std::int64_t out_features() const;
  // {C_out, H_out, W_out} of the last conv layer.
  const std::vector<std::int64_t>& conv_output_shape() const { return conv_output_shape_; }

  // Orthogonal weights scaled by `gain` and zero biases on every layer (SB3 uses sqrt(2) for
  // its CNN feature extractor when ortho_init is on).
  void orthogonal_init(double gain);

  // The layers, for initialization and tests. linear() is null when features == 0.
  const std::vector<torch::nn::Conv2d>& convs() const { return convs_; }
  const torch::nn::Linear& linear() const { return linear_; }

  ConvEncoderOptions options;

 private:
  std::vector<torch::nn::Conv2d> convs_;  // "conv0", "conv1", ...
  torch::nn::Linear linear_{nullptr};     // "linear"
  std::vector<std::int64_t> conv_output_shape_;
};
TORCH_MODULE(ConvEncoder);

// Orthogonal weights (flattened to [out_channels, in_channels * kH * kW]) scaled by `gain`, and
// zero biases: SB3's init for conv layers.
void orthogonal_init(torch::nn::Conv2d& layer, double gain);

}  // namespace mnrl::nn
