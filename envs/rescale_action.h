#pragma once

#include <memory>
#include <vector>

#include "envs/wrapper.h"

namespace mnrl::envs {

// Gymnasium's RescaleAction: the agent acts in [min_action, max_action] per value, mapped
// linearly onto the inner env's [low, high]. Unlike Gymnasium, which asserts, a value outside
// [min_action, max_action] is mapped and then clipped to [low, high] (a Gaussian policy's
// samples routinely fall outside).
class RescaleAction final : public Wrapper {
 public:
  // Throws std::invalid_argument unless the inner action space is a Box with finite bounds and
  // min_action < max_action.
  RescaleAction(std::unique_ptr<Env> env, double min_action, double max_action);

  // Throws std::invalid_argument for a wrong number of values or a NaN (check_action).
  StepResult step(const ActionRef& action, core::TypedPtr observation) override;

 private:
  double min_action_, max_action_;
  std::vector<float> low_, high_, rescaled_;
};

}  // namespace mnrl::envs
