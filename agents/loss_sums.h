#pragma once

#include <cstdint>

#include <ATen/core/Tensor.h>

#include "agents/actor_critic_loss_gradients.h"

namespace mnrl::agents {

// The loss parts of an update's gradient steps, summed where the steps computed them: on the
// host, or in a device tensor that steps run as CUDA graphs add to, read back once by means().
class LossSums {
 public:
  // Floats of a device sum: LossValues' parts in their order.
  static constexpr std::int64_t kParts = 6;

  void add(const LossValues& values);
  // A step that added its parts to `device_sums` ([kParts] floats, zeroed before the first).
  void add_on_device(const at::Tensor& device_sums);
  // The parts' means over the steps.
  LossValues means() const;

 private:
  LossValues host_;
  at::Tensor device_;
  std::int64_t steps_ = 0;
};

}  // namespace mnrl::agents
