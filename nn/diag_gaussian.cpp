#include "nn/diag_gaussian.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/exp.h>
#include <ATen/ops/randn_like.h>
#include <ATen/ops/sum.h>
#include <c10/util/Exception.h>

namespace mnrl::nn {
namespace {

constexpr double kHalfLog2Pi = 0.91893853320467274178;  // 0.5 * log(2 pi)

at::Tensor broadcast_log_std(const at::Tensor& mean, const at::Tensor& log_std) {
  TORCH_CHECK(mean.dim() == 2, "DiagGaussian: mean must be [batch, dim], got ", mean.sizes());
  TORCH_CHECK((log_std.dim() == 1 && log_std.size(0) == mean.size(1)) ||
                  (log_std.dim() == 2 && log_std.sizes() == mean.sizes()),
              "DiagGaussian: log_std must be [dim] or [batch, dim] for mean ", mean.sizes(),
              ", got ", log_std.sizes());
  return log_std.expand_as(mean);
}

}  // namespace

DiagGaussian::DiagGaussian(const at::Tensor& mean, const at::Tensor& log_std)
    : mean_(mean), log_std_(broadcast_log_std(mean, log_std)) {}

at::Tensor DiagGaussian::sample() const { return rsample().detach(); }

at::Tensor DiagGaussian::rsample() const {
  return mean_ + at::exp(log_std_) * at::randn_like(mean_);
}

at::Tensor DiagGaussian::mode() const { return mean_; }

at::Tensor DiagGaussian::log_prob(const at::Tensor& actions) const {
  const at::Tensor z = (actions - mean_) * at::exp(-log_std_);
  return at::sum(z * z * -0.5 - log_std_ - kHalfLog2Pi, -1);
}

at::Tensor DiagGaussian::entropy() const { return at::sum(log_std_ + (0.5 + kHalfLog2Pi), -1); }

}  // namespace mnrl::nn
