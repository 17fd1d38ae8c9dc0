#include "nn/categorical.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/argmax.h>
#include <ATen/ops/exp.h>
#include <ATen/ops/log_softmax.h>
#include <ATen/ops/multinomial.h>

namespace mnrl::nn {

Categorical::Categorical(const at::Tensor& logits) : log_probs_(at::log_softmax(logits, -1)) {}

at::Tensor Categorical::sample() const {
  return at::multinomial(log_probs_.detach().exp(), 1, /*replacement=*/true).squeeze(-1);
}

at::Tensor Categorical::mode() const { return log_probs_.argmax(-1); }

at::Tensor Categorical::log_prob(const at::Tensor& actions) const {
  return log_probs_.gather(-1, actions.unsqueeze(-1)).squeeze(-1);
}

at::Tensor Categorical::entropy() const { return -(log_probs_.exp() * log_probs_).sum(-1); }

}  // namespace mnrl::nn
