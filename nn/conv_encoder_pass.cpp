#include "nn/conv_encoder_pass.h"

#include <cstring>

#include <ATen/ops/empty.h>
#include <c10/core/InferenceMode.h>

#include "nn/compute_threads.h"
#include "nn/memory_views.h"
#include "nn/row_major_gemm.h"

namespace mnrl::nn {

ConvLayer::ConvLayer(const torch::nn::Conv2d& conv, const std::vector<std::int64_t>& input_shape,
                     std::int64_t batch_size)
    : weight(conv->weight),
      bias(conv->bias),
      batch_(batch_size),
      channels_(input_shape[0]),
      height_(input_shape[1]),
      width_(input_shape[2]),
      kernel_(conv->options.kernel_size()->at(0)),
      stride_(conv->options.stride()->at(0)),
      out_channels_(conv->weight.size(0)),
      out_height_((height_ - kernel_) / stride_ + 1),
      out_width_((width_ - kernel_) / stride_ + 1) {
  const std::int64_t positions = batch_ * out_height_ * out_width_;
  output = at::empty({batch_, out_channels_, out_height_, out_width_});
  output_gradient = at::empty_like(output);
  patches_ = at::empty({positions, channels_ * kernel_ * kernel_});
  rows_ = at::empty({positions, out_channels_});
}

std::int64_t ConvLayer::multiply_adds() const { return patches_.numel() * out_channels_; }

void ConvLayer::forward(const float* input) {
  const std::int64_t patch = channels_ * kernel_ * kernel_;
  const std::int64_t positions = out_height_ * out_width_;
  // im2col: row (b, y, x) holds input[b, c, y*stride + i, x*stride + j] at column (c, i, j),
  // the order of the weight's [C_out, C, k, k] layout.
  float* row = floats(patches_);
  for (std::int64_t b = 0; b < batch_; ++b) {
    const float* image = input + b * channels_ * height_ * width_;
    for (std::int64_t y = 0; y < out_height_; ++y) {
      for (std::int64_t x = 0; x < out_width_; ++x, row += patch) {
        float* out = row;
        for (std::int64_t c = 0; c < channels_; ++c) {
          const float* top_left = image + (c * height_ + y * stride_) * width_ + x * stride_;
          // A loop, not memcpy: rows of a few floats cost a call each otherwise.
          for (std::int64_t i = 0; i < kernel_; ++i) {
            const float* from = top_left + i * width_;
            for (std::int64_t j = 0; j < kernel_; ++j) *out++ = from[j];
          }
        }
      }
    }
  }
  // rows = patches weight^T + bias, one row per position, then ReLU into output's channel-major
  // layout.
  float* r = floats(rows_);
  const float* b = floats(bias);
  for (std::int64_t p = 0; p < batch_ * positions; ++p) {
    std::memcpy(r + p * out_channels_, b, static_cast<std::size_t>(out_channels_) * sizeof(float));
  }
  row_major_gemm(false, true, batch_ * positions, out_channels_, patch, floats(patches_), patch,
                 floats(weight), patch, 1.0f, r, out_channels_);
  float* o = floats(output);
  for (std::int64_t n = 0; n < batch_; ++n) {
    for (std::int64_t p = 0; p < positions; ++p) {
      const float* from = r + (n * positions + p) * out_channels_;
      for (std::int64_t c = 0; c < out_channels_; ++c) {
        o[(n * out_channels_ + c) * positions + p] = from[c] > 0.0f ? from[c] : 0.0f;
      }
    }
  }
}

void ConvLayer::backward(float* input_gradient) {
  const std::int64_t patch = channels_ * kernel_ * kernel_;
  const std::int64_t positions = out_height_ * out_width_;
  // d loss / d pre-activation, one row per position: relu' = [output > 0] (0 at 0, as
  // autograd's threshold_backward).
  const float* o = floats(output);
  const float* g = floats(output_gradient);
  float* r = floats(rows_);
  for (std::int64_t n = 0; n < batch_; ++n) {
    for (std::int64_t c = 0; c < out_channels_; ++c) {
      const std::int64_t at = (n * out_channels_ + c) * positions;
      for (std::int64_t p = 0; p < positions; ++p) {
        r[(n * positions + p) * out_channels_ + c] = o[at + p] > 0.0f ? g[at + p] : 0.0f;
      }
    }
  }
  const auto parameter_gradients = [&] {
    // d loss / d weight = rows^T patches; d loss / d bias = the sum of the rows.
    row_major_gemm(true, false, out_channels_, patch, batch_ * positions, r, out_channels_,
                   floats(patches_), patch, 0.0f, floats(gradient_of(weight)), patch);
    float* bias_gradient = floats(gradient_of(bias));
    std::memset(bias_gradient, 0, static_cast<std::size_t>(out_channels_) * sizeof(float));
    for (std::int64_t p = 0; p < batch_ * positions; ++p) {
      for (std::int64_t c = 0; c < out_channels_; ++c) bias_gradient[c] += r[p * out_channels_ + c];
    }
  };
  if (input_gradient == nullptr) {
    parameter_gradients();
    return;
  }
  if (!patch_gradients_.defined()) patch_gradients_ = at::empty_like(patches_);
  float* patch_gradient = floats(patch_gradients_);
  run_both(multiply_adds(), parameter_gradients, [&] {
    // d loss / d patches = rows weight, then col2im: each patch entry adds into the input
    // element it was copied from.
    row_major_gemm(false, false, batch_ * positions, patch, out_channels_, r, out_channels_,
                   floats(weight), patch, 0.0f, patch_gradient, patch);
    std::memset(input_gradient, 0,
                static_cast<std::size_t>(batch_ * channels_ * height_ * width_) * sizeof(float));
    const float* row = patch_gradient;
    for (std::int64_t b = 0; b < batch_; ++b) {
      float* image = input_gradient + b * channels_ * height_ * width_;
      for (std::int64_t y = 0; y < out_height_; ++y) {
        for (std::int64_t x = 0; x < out_width_; ++x, row += patch) {
          const float* from = row;
          for (std::int64_t c = 0; c < channels_; ++c) {
            float* top_left = image + (c * height_ + y * stride_) * width_ + x * stride_;
            for (std::int64_t i = 0; i < kernel_; ++i) {
              for (std::int64_t j = 0; j < kernel_; ++j) top_left[i * width_ + j] += *from++;
            }
          }
        }
      }
    }
  });
}

ConvEncoderPass::ConvEncoderPass(const ConvEncoder& encoder, std::int64_t batch_size)
    : has_linear_(!encoder->linear().is_empty()),
      linear_(has_linear_ ? std::vector<torch::nn::Linear>{encoder->linear()}
                          : std::vector<torch::nn::Linear>{},
              Activation::relu, checked_batch_size("ConvEncoderPass", batch_size)) {
  std::vector<std::int64_t> shape = encoder->options.image_shape();
  for (const auto& conv : encoder->convs()) {
    convs_.emplace_back(conv, shape, batch_size);
    const at::Tensor& output = convs_.back().output;
    shape = {output.size(1), output.size(2), output.size(3)};
  }
  flat_ = convs_.back().output.view({batch_size, -1});
  flat_gradient_ = convs_.back().output_gradient.view({batch_size, -1});
}

std::int64_t ConvEncoderPass::multiply_adds() const {
  std::int64_t sum = linear_.multiply_adds();
  for (const ConvLayer& conv : convs_) sum += conv.multiply_adds();
  return sum;
}

const at::Tensor& ConvEncoderPass::forward(const float* observations) {
  c10::InferenceMode inference;
  const float* input = observations;
  for (ConvLayer& conv : convs_) {
    conv.forward(input);
    input = floats(conv.output);
  }
  return linear_.forward(flat_);
}

at::Tensor& ConvEncoderPass::features_gradient() {
  return has_linear_ ? linear_.features_gradient() : flat_gradient_;
}

void ConvEncoderPass::backward() {
  c10::InferenceMode inference;
  if (has_linear_) linear_.backward(&flat_gradient_);
  for (std::size_t l = convs_.size(); l-- > 0;) {
    convs_[l].backward(l == 0 ? nullptr : floats(convs_[l - 1].output_gradient));
  }
}

}  // namespace mnrl::nn
