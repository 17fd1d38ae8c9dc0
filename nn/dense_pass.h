#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/modules/linear.h>

#include <cstdint>
#include <vector>

#include "nn/activation.h"
#include "nn/noisy_linear.h"

namespace mnrl::nn {

// The pieces of a hand-written forward and backward pass over dense layers, for one batch size,
// over a module's own parameter tensors and their .grad() tensors: a gradient step through
// autograd costs dozens of LibTorch ops and a graph; here it is a few BLAS calls and plain loops
// over buffers allocated once. QNetworkPass and ActorCriticPass are built from them.
//
// Invariant: the module's parameters are not replaced while a pass over them lives (they may be
// written in place, as FlatParameters and optimizers do).

// One linear layer: output = input weight^T + bias.
struct DenseLayer {
  DenseLayer() = default;
  DenseLayer(const torch::nn::Linear& linear, std::int64_t batch_size);
  // A noisy layer: weight and bias are its effective ones, mu + sigma * noise, refreshed from
  // the layer's parameters and noise at each forward() of several rows (one row, as acting,
  // goes through the factors instead: refreshing costs more than its product);
  // write_parameter_gradients() writes the means' and the sigmas' gradients.
  DenseLayer(const NoisyLinear& noisy, std::int64_t batch_size);

  void forward(const at::Tensor& input);
  // Writes (does not add) d loss / d weight and d loss / d bias, from output_gradient and the
  // `input` of the last forward().
  void write_parameter_gradients(const at::Tensor& input) const;
  // input_gradient (+)= output_gradient weight: d loss / d input.
  void input_gradient(at::Tensor& input_gradient, bool accumulate) const;
  // Of forward(), and of each of the two backward products.
  std::int64_t multiply_adds() const { return output.size(0) * weight.numel(); }

  at::Tensor weight, bias;     // [out, in], [out]: the module's parameters (noisy: effective)
  at::Tensor output;           // [batch, out], after the activation where there is one
  at::Tensor output_gradient;  // [batch, out]: d loss / d output, then / d pre-activation
  // A noisy layer's (empty holder otherwise). The effective weight's and bias's .grad() are the
  // means' gradients: d loss / d mu is d loss / d effective weight.
  NoisyLinear noisy{nullptr};
  at::Tensor row_scratch_in, row_scratch_out;  // a noisy layer's, for one row: [in], [out]
};

// An Mlp's layers, each a linear layer followed by the activation.
class TrunkPass {
 public:
  // `noisy`: the layers themselves where they are noisy (Mlp::noisy_layers()), else empty.
  TrunkPass(const std::vector<torch::nn::Linear>& layers, Activation activation,
            std::int64_t batch_size, const std::vector<NoisyLinear>& noisy = {});

  // The features [batch, width] of `input` [batch, in] (the input itself without layers).
  // Keeps `input` (a view: its memory must live until backward()) and the activations.
  const at::Tensor& forward(const at::Tensor& input);
  // The last forward()'s features.
  const at::Tensor& features() const { return layers_.empty() ? input_ : layers_.back().output; }
  bool empty() const { return layers_.empty(); }
  // Of forward(): the sum over the layers.
  std::int64_t multiply_adds() const;
  // d loss / d features, for the caller to fill before backward(); only when !empty().
  at::Tensor& features_gradient() { return layers_.back().output_gradient; }
  // Writes every layer's parameter gradients and, given `input_gradient`, d loss / d input
  // [batch, in] there. A layer's weight gradient and its input gradient are independent pieces
  // (nn/compute_threads.h).
  void backward(at::Tensor* input_gradient = nullptr);
  // Writes d loss / d input [batch, in] into `input_gradient`, without any parameter gradient
  // (what a critic's output owes to the action it was given). Only when !empty(); either
  // backward() or this, once per forward().
  void input_gradient(at::Tensor& input_gradient);

 private:
  Activation activation_;
  at::Tensor input_;
  std::vector<DenseLayer> layers_;
};

// `batch_size`, or std::invalid_argument naming `pass` when it is below 1.
std::int64_t checked_batch_size(const char* pass, std::int64_t batch_size);

// d loss / d parameter, which FlatParameters and every optimizer keep defined.
at::Tensor gradient_of(const at::Tensor& parameter);

}  // namespace mnrl::nn
