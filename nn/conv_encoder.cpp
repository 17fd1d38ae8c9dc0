#include "nn/conv_encoder.h"

#include <ATen/ops/relu.h>
#include <c10/util/Exception.h>
#include <torch/nn/init.h>

#include <cstddef>
#include <stdexcept>
#include <string>

#include "nn/mlp.h"

namespace mnrl::nn {
namespace {

// "[4, 10, 10]"
std::string bracketed(const std::vector<std::int64_t>& values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(values[i]);
  }
  return text + "]";
}

std::vector<std::int64_t> first(const std::vector<std::int64_t>& values, std::size_t count) {
  return {values.begin(), values.begin() + static_cast<std::ptrdiff_t>(count)};
}

[[noreturn]] void refuse(const std::string& message) {
  throw std::invalid_argument("ConvEncoder: " + message);
}

}  // namespace

ConvEncoderOptions ConvEncoderOptions::minatar(std::vector<std::int64_t> image_shape) {
  return ConvEncoderOptions(std::move(image_shape))
      .channels({16})
      .kernel_sizes({3})
      .strides({1})
      .features(128);
}

ConvEncoderOptions ConvEncoderOptions::nature(std::vector<std::int64_t> image_shape) {
  return ConvEncoderOptions(std::move(image_shape))
      .channels({32, 64, 64})
      .kernel_sizes({8, 4, 3})
      .strides({4, 2, 1})
      .features(512);
}

std::vector<std::int64_t> conv_output_shape(const ConvEncoderOptions& options) {
  const auto& image = options.image_shape();
  const auto& channels = options.channels();
  const auto& kernels = options.kernel_sizes();
  const auto& strides = options.strides();
  if (image.size() != 3 || image[0] < 1 || image[1] < 1 || image[2] < 1) {
    refuse("image_shape must be 3 values {C, H, W}, each >= 1, got " + bracketed(image));
  }
  if (channels.size() != kernels.size() || channels.size() != strides.size()) {
    refuse("channels, kernel_sizes and strides need one value per conv layer, got " +
           std::to_string(channels.size()) + ", " + std::to_string(kernels.size()) + " and " +
           std::to_string(strides.size()) + " values");
  }
  if (channels.empty()) refuse("needs at least one conv layer (channels is empty)");
  if (options.features() < 0) {
    refuse("features must be >= 0 (0: no linear layer), got " + std::to_string(options.features()));
  }
  std::int64_t c = image[0], h = image[1], w = image[2];
  for (std::size_t i = 0; i < channels.size(); ++i) {
    const std::string layer = "conv layer " + std::to_string(i) + ": ";
    if (channels[i] < 1)
      refuse(layer + "channels must be >= 1, got " + std::to_string(channels[i]));
    if (kernels[i] < 1)
      refuse(layer + "kernel size must be >= 1, got " + std::to_string(kernels[i]));
    if (strides[i] < 1) refuse(layer + "stride must be >= 1, got " + std::to_string(strides[i]));
    if (kernels[i] > h || kernels[i] > w) {
      std::string origin = "image " + bracketed(image);
      if (i > 0) {
        origin += " after conv layers 0-" + std::to_string(i - 1) + " with kernels " +
                  bracketed(first(kernels, i)) + " and strides " + bracketed(first(strides, i));
      }
      refuse(layer + "kernel " + std::to_string(kernels[i]) + " does not fit a " +
             std::to_string(h) + "x" + std::to_string(w) + " input (" + origin + ")");
    }
    c = channels[i];
    h = (h - kernels[i]) / strides[i] + 1;
    w = (w - kernels[i]) / strides[i] + 1;
  }
  return {c, h, w};
}

ConvEncoderImpl::ConvEncoderImpl(ConvEncoderOptions options_)
    : options(std::move(options_)), conv_output_shape_(nn::conv_output_shape(options)) {
  reset();
}

void ConvEncoderImpl::reset() {
  convs_.clear();
  std::int64_t in = options.image_shape()[0];
  for (std::size_t i = 0; i < options.channels().size(); ++i) {
    const std::int64_t out = options.channels()[i];
    convs_.push_back(register_module(
        "conv" + std::to_string(i),
        torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, options.kernel_sizes()[i])
                              .stride(options.strides()[i]))));
    in = out;
  }
  if (options.features() > 0) {
    const std::int64_t flat = conv_output_shape_[0] * conv_output_shape_[1] * conv_output_shape_[2];
    linear_ = register_module("linear", torch::nn::Linear(flat, options.features()));
  }
}

at::Tensor ConvEncoderImpl::forward(const at::Tensor& flat_observations) {
  const auto& image = options.image_shape();
  const std::int64_t size = image[0] * image[1] * image[2];
  TORCH_CHECK(flat_observations.dim() >= 1 && flat_observations.size(-1) == size,
              "ConvEncoder: expected rows of C*H*W = ", size, " values (image ", bracketed(image),
              "), got a tensor of shape ", flat_observations.sizes());
  auto leading = flat_observations.sizes().vec();
  leading.pop_back();
  // An explicit row count, since reshape cannot infer -1 for an empty batch.
  const std::int64_t rows = flat_observations.numel() / size;
  at::Tensor x = flat_observations.reshape({rows, image[0], image[1], image[2]});
  for (auto& conv : convs_) x = at::relu(conv->forward(x));
  x = x.flatten(1);
  if (!linear_.is_empty()) x = at::relu(linear_->forward(x));
  leading.push_back(x.size(-1));
  return x.reshape(leading);
}

std::int64_t ConvEncoderImpl::out_features() const {
  if (options.features() > 0) return options.features();
  return conv_output_shape_[0] * conv_output_shape_[1] * conv_output_shape_[2];
}

void ConvEncoderImpl::orthogonal_init(double gain) {
  for (auto conv : convs_) nn::orthogonal_init(conv, gain);
  if (!linear_.is_empty()) nn::orthogonal_init(linear_, gain);
}

void orthogonal_init(torch::nn::Conv2d& layer, double gain) {
  // orthogonal_ flattens every dimension after the first, as torch.nn.init does.
  torch::nn::init::orthogonal_(layer->weight, gain);
  if (layer->bias.defined()) torch::nn::init::zeros_(layer->bias);
}

}  // namespace mnrl::nn
