#include "agents/loss_sums.h"

namespace mnrl::agents {

void LossSums::add(const LossValues& values) {
  host_.policy_loss += values.policy_loss;
  host_.value_loss += values.value_loss;
  host_.entropy += values.entropy;
  host_.old_approx_kl += values.old_approx_kl;
  host_.approx_kl += values.approx_kl;
  host_.clip_fraction += values.clip_fraction;
  ++steps_;
}

void LossSums::add_on_device(const at::Tensor& device_sums) {
  device_ = device_sums;
  ++steps_;
}

LossValues LossSums::means() const {
  LossValues sums = host_;
  if (device_.defined()) {
    const at::Tensor on_host = device_.to(at::kDouble).to(at::kCPU);  // the one wait
    const double* part = on_host.data_ptr<double>();
    sums.policy_loss += part[0];
    sums.value_loss += part[1];
    sums.entropy += part[2];
    sums.old_approx_kl += part[3];
    sums.approx_kl += part[4];
    sums.clip_fraction += part[5];
  }
  const double n = steps_ > 0 ? static_cast<double>(steps_) : 1.0;
  return {sums.policy_loss / n, sums.value_loss / n,   sums.entropy / n,
          sums.old_approx_kl / n, sums.approx_kl / n, sums.clip_fraction / n};
}

}  // namespace mnrl::agents
