#include "nn/squashed_diag_gaussian.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/atanh.h>
#include <ATen/ops/clamp.h>
#include <ATen/ops/log.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/tanh.h>

#include <limits>

namespace mnrl::nn {
namespace {

// The dtype's machine epsilon, as th.finfo(dtype).eps in SB3's TanhBijector.inverse.
double machine_epsilon(const at::Tensor& t) {
  return t.scalar_type() == at::kDouble ? std::numeric_limits<double>::epsilon()
                                        : std::numeric_limits<float>::epsilon();
}

}  // namespace

SquashedDiagGaussian::SquashedDiagGaussian(const at::Tensor& mean, const at::Tensor& log_std)
    : gaussian_(mean, log_std) {}

at::Tensor SquashedDiagGaussian::sample() const { return at::tanh(gaussian_.sample()); }

at::Tensor SquashedDiagGaussian::mode() const { return at::tanh(gaussian_.mean()); }

at::Tensor SquashedDiagGaussian::log_prob(const at::Tensor& actions) const {
  const double eps = machine_epsilon(actions);
  return squashed_log_prob(at::atanh(at::clamp(actions, -1.0 + eps, 1.0 - eps)), actions);
}

at::Tensor SquashedDiagGaussian::log_prob_from_pre_tanh(const at::Tensor& pre_tanh) const {
  return squashed_log_prob(pre_tanh, at::tanh(pre_tanh));
}

at::Tensor SquashedDiagGaussian::entropy() const {
  // H[u] (exact) + one reparameterized draw of E[sum log(1 - tanh(u)^2)]; see the header.
  const at::Tensor actions = at::tanh(gaussian_.rsample());
  return gaussian_.entropy() + at::sum(at::log(1.0 - actions * actions + kEpsilon), -1);
}

at::Tensor SquashedDiagGaussian::squashed_log_prob(const at::Tensor& pre_tanh,
                                                   const at::Tensor& actions) const {
  return gaussian_.log_prob(pre_tanh) - at::sum(at::log(1.0 - actions * actions + kEpsilon), -1);
}

}  // namespace mnrl::nn
