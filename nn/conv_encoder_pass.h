#pragma once

#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>
#include <torch/nn/modules/conv.h>

#include "nn/conv_encoder.h"
#include "nn/dense_pass.h"

namespace mnrl::nn {

// One conv layer + ReLU of a hand-written pass (nn/dense_pass.h), for one batch size: the
// image patches are gathered into columns (im2col, one column per output position of the
// batch) and the weight multiplies them in one sgemm, so that a conv costs what a dense layer
// of batch * positions rows costs, without LibTorch's per-op dispatch and graph. The columns
// layout makes every copy a run of contiguous floats: im2col and col2im copy image rows, and
// the product's rows are whole channels of each image.
struct ConvLayer {
  // `input_shape`: {C, H, W} of one input image.
  ConvLayer(const torch::nn::Conv2d& conv, const std::vector<std::int64_t>& input_shape,
            std::int64_t batch_size);

  // output = relu(conv(input)), input [batch, C, H, W] row-major.
  void forward(const float* input);
  // From output_gradient (d loss / d output) at the last forward(): writes (does not add)
  // d loss / d weight and d loss / d bias; with `input_gradient` non-null, also writes
  // d loss / d input there ([batch, C, H, W]).
  void backward(float* input_gradient);
  // Of forward(), and of each backward product.
  std::int64_t multiply_adds() const;

  at::Tensor weight, bias;     // [C_out, C, k, k], [C_out]: the module's parameters
  at::Tensor output;           // [batch, C_out, H_out, W_out], after the ReLU
  at::Tensor output_gradient;  // [batch, C_out, H_out, W_out]: d loss / d output

 private:
  std::int64_t batch_, channels_, height_, width_, kernel_, stride_;
  std::int64_t out_channels_, out_height_, out_width_;
  at::Tensor patches_;           // [C * k * k, batch * H_out * W_out]: the last forward()'s input
  at::Tensor rows_;              // [C_out, batch * H_out * W_out]: the product, channel-major
  at::Tensor patch_gradients_;   // like patches_, only when an input gradient is asked for
};

// A ConvEncoder's forward and backward pass by hand, for one batch size: conv layers
// (ConvLayer), flattened channel-major, then the linear layer + ReLU where there is one. Tests
// check values and gradients against autograd.
class ConvEncoderPass {
 public:
  ConvEncoderPass(const ConvEncoder& encoder, std::int64_t batch_size);

  // Features [batch, out_features] of `observations` [batch, C*H*W] (images flattened
  // channel-first, already scaled); valid until the next forward(). Keeps the activations.
  const at::Tensor& forward(const float* observations);
  // d loss / d features, for the caller to fill before backward().
  at::Tensor& features_gradient();
  // Writes (does not add) every layer's parameter gradients. The observations get none.
  void backward();
  // Of forward().
  std::int64_t multiply_adds() const;

 private:
  std::vector<ConvLayer> convs_;
  at::Tensor flat_, flat_gradient_;  // the last conv's output and gradient, [batch, C*H*W]
  bool has_linear_;
  TrunkPass linear_;  // the linear layer + ReLU, or no layer
};

}  // namespace mnrl::nn
