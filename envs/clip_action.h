#pragma once

#include <memory>
#include <vector>

#include "envs/wrapper.h"

namespace mnrl::envs {

// Gymnasium's ClipAction: clips each value of a Box action into the inner env's bounds, so the
// wrapper accepts any non-NaN values (its action space is the same shape, unbounded).
class ClipAction final : public Wrapper {
 public:
  // Throws std::invalid_argument unless the inner action space is a Box.
  explicit ClipAction(std::unique_ptr<Env> env);

  // Throws std::invalid_argument for a wrong number of values or a NaN (check_action).
  StepResult step(const ActionRef& action, core::TypedPtr observation) override;

 private:
  std::vector<float> low_, high_, clipped_;
};

}  // namespace mnrl::envs
