#include "envs/clip_action.h"

#include <algorithm>
#include <limits>

#include "envs/action_check.h"

namespace mnrl::envs {

ClipAction::ClipAction(std::unique_ptr<Env> env) : Wrapper(std::move(env), "ClipAction") {
  // A copy: spec_.action_space is replaced below (and GCC 13 sees a reference into a temporary).
  const Box box = expect_box(spec_.action_space, "ClipAction(" + spec_.id + "): action space");
  low_ = box.low;
  high_ = box.high;
  clipped_.resize(low_.size());
  constexpr float kInfinity = std::numeric_limits<float>::infinity();
  spec_.action_space = Box{box.shape, std::vector<float>(low_.size(), -kInfinity),
                           std::vector<float>(low_.size(), kInfinity)};
}

StepResult ClipAction::step(const ActionRef& action, core::TypedPtr observation) {
  check_action(spec_, action);
  for (std::size_t i = 0; i < clipped_.size(); ++i) {
    clipped_[i] = std::clamp(action.values[i], low_[i], high_[i]);
  }
  return inner_env().step({0, clipped_.data(), action.size}, observation);
}

}  // namespace mnrl::envs
