#pragma once

#include <ATen/core/Tensor.h>

#include "nn/action_distribution.h"

namespace mnrl::nn {

// A batch of categorical distributions over the last dimension of `logits`, as
// torch.distributions.Categorical(logits=...).
class Categorical final : public ActionDistribution {
 public:
  explicit Categorical(const at::Tensor& logits);

  at::Tensor sample() const override;  // [batch] int64
  at::Tensor mode() const override;    // [batch] int64
  at::Tensor log_prob(const at::Tensor& actions) const override;  // actions: [batch] int64
  at::Tensor entropy() const override;
  const at::Tensor& log_probs() const { return log_probs_; }

 private:
  at::Tensor log_probs_;  // normalized: logsumexp over the last dim is 0
};

}  // namespace mnrl::nn
