#include "nn/conv_encoder_pass.h"

#include <algorithm>
#include <cstring>

#include <ATen/ops/empty.h>
#include <c10/core/InferenceMode.h>

#include "nn/compute_threads.h"
#include "nn/memory_views.h"
#include "nn/relu_arrays.h"
#include "nn/row_major_gemm.h"

namespace mnrl::nn {
namespace {

// The sum of n floats in 8 interleaved partial sums, which the compiler keeps in vector
// registers: a single running sum waits on each add (16 channels x 16k positions of PPO's
// minibatch took more time than the conv's product).
float sum_of(const float* values, std::int64_t n) {
  constexpr std::int64_t kLanes = 8;
  float partial[kLanes] = {};
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (std::int64_t lane = 0; lane < kLanes; ++lane) partial[lane] += values[i + lane];
  }
  float sum = 0.0f;
  for (; i < n; ++i) sum += values[i];
  for (const float p : partial) sum += p;
  return sum;
}

// to[0, n) = from[0, n), inline: im2col's runs are a few floats, which a memmove call per run
// costs more than copying.
void copy_run(const float* __restrict from, std::int64_t n, float* __restrict to) {
  constexpr std::int64_t kChunk = 8;
  for (; n >= kChunk; n -= kChunk, from += kChunk, to += kChunk) {
    std::memcpy(to, from, kChunk * sizeof(float));  // a constant size: two vector moves
  }
  for (std::int64_t i = 0; i < n; ++i) to[i] = from[i];
}

}  // namespace

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
  const std::int64_t columns = batch_ * out_height_ * out_width_;
  output = at::empty({batch_, out_channels_, out_height_, out_width_});
  output_gradient = at::empty_like(output);
  patches_ = at::empty({channels_ * kernel_ * kernel_, columns});
  rows_ = at::empty({out_channels_, columns});
}

std::int64_t ConvLayer::multiply_adds() const { return patches_.numel() * out_channels_; }

void ConvLayer::forward(const float* input) {
  const std::int64_t patch = channels_ * kernel_ * kernel_;
  const std::int64_t positions = out_height_ * out_width_;
  const std::int64_t columns = batch_ * positions;
  // im2col, one row per weight column: row (c, i, j) holds input[b, c, y*stride + i,
  // x*stride + j] at column (b, y, x); each (b, y) is a run of out_width_ inputs.
  float* to = floats(patches_);
  for (std::int64_t c = 0; c < channels_; ++c) {
    for (std::int64_t i = 0; i < kernel_; ++i) {
      for (std::int64_t j = 0; j < kernel_; ++j) {
        for (std::int64_t b = 0; b < batch_; ++b) {
          const float* image = input + (b * channels_ + c) * height_ * width_ + i * width_ + j;
          for (std::int64_t y = 0; y < out_height_; ++y, to += out_width_) {
            const float* from = image + y * stride_ * width_;
            if (stride_ == 1) {
              copy_run(from, out_width_, to);
            } else {
              for (std::int64_t x = 0; x < out_width_; ++x) to[x] = from[x * stride_];
            }
          }
        }
      }
    }
  }
  // rows = weight patches + bias: one row per output channel, one column per position.
  float* r = floats(rows_);
  const float* b = floats(bias);
  for (std::int64_t o = 0; o < out_channels_; ++o) std::fill_n(r + o * columns, columns, b[o]);
  row_major_gemm(false, false, out_channels_, columns, patch, floats(weight), patch,
                 floats(patches_), columns, 1.0f, r, columns);
  // output[n, o] = relu(rows[o, the positions of image n]).
  float* out = floats(output);
  for (std::int64_t n = 0; n < batch_; ++n) {
    for (std::int64_t o = 0; o < out_channels_; ++o, out += positions) {
      relu_of_array(r + o * columns + n * positions, out, positions);
    }
  }
}

void ConvLayer::backward(float* input_gradient) {
  const std::int64_t patch = channels_ * kernel_ * kernel_;
  const std::int64_t positions = out_height_ * out_width_;
  const std::int64_t columns = batch_ * positions;
  // d loss / d pre-activation in rows' layout: relu' = [output > 0] (0 at 0, as autograd's
  // threshold_backward).
  const float* o = floats(output);
  const float* g = floats(output_gradient);
  float* r = floats(rows_);
  for (std::int64_t n = 0; n < batch_; ++n) {
    for (std::int64_t c = 0; c < out_channels_; ++c, o += positions, g += positions) {
      relu_gradient_of_array(o, g, r + c * columns + n * positions, positions);
    }
  }
  const auto parameter_gradients = [&] {
    // d loss / d weight = rows patches^T; d loss / d bias = each row's sum.
    row_major_gemm(false, true, out_channels_, patch, columns, r, columns, floats(patches_),
                   columns, 0.0f, floats(gradient_of(weight)), patch);
    float* bias_gradient = floats(gradient_of(bias));
    for (std::int64_t c = 0; c < out_channels_; ++c) {
      bias_gradient[c] = sum_of(r + c * columns, columns);
    }
  };
  if (input_gradient == nullptr) {
    parameter_gradients();
    return;
  }
  if (!patch_gradients_.defined()) patch_gradients_ = at::empty_like(patches_);
  float* patch_gradient = floats(patch_gradients_);
  run_both(multiply_adds(), parameter_gradients, [&] {
    // d loss / d patches = weight^T rows, then col2im: each patch entry adds into the input
    // element it was copied from.
    row_major_gemm(true, false, patch, columns, out_channels_, floats(weight), patch, r, columns,
                   0.0f, patch_gradient, columns);
    std::memset(input_gradient, 0,
                static_cast<std::size_t>(batch_ * channels_ * height_ * width_) * sizeof(float));
    const float* from = patch_gradient;
    for (std::int64_t c = 0; c < channels_; ++c) {
      for (std::int64_t i = 0; i < kernel_; ++i) {
        for (std::int64_t j = 0; j < kernel_; ++j) {
          for (std::int64_t b = 0; b < batch_; ++b) {
            float* image =
                input_gradient + (b * channels_ + c) * height_ * width_ + i * width_ + j;
            for (std::int64_t y = 0; y < out_height_; ++y, from += out_width_) {
              float* to = image + y * stride_ * width_;
              for (std::int64_t x = 0; x < out_width_; ++x) to[x * stride_] += from[x];
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
