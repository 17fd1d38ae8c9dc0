#pragma once

#include <ATen/core/Tensor.h>

namespace mnrl::nn {

// A batch of categorical distributions over the last dimension of `logits`, as
// torch.distributions.Categorical(logits=...).
class Categorical {
 public:
  explicit Categorical(const at::Tensor& logits);

  at::Tensor sample() const;                             // [batch] int64, torch's default generator
  at::Tensor mode() const;                               // [batch] int64, most likely action
  at::Tensor log_prob(const at::Tensor& actions) const;  // actions: [batch] int64
  at::Tensor entropy() const;                            // [batch]
  const at::Tensor& log_probs() const { return log_probs_; }

 private:
  at::Tensor log_probs_;  // normalized: logsumexp over the last dim is 0
};

}  // namespace mnrl::nn
