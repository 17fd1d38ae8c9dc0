#include "envs/rescale_action.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "envs/action_check.h"

namespace mnrl::envs {

RescaleAction::RescaleAction(std::unique_ptr<Env> env, double min_action, double max_action)
    : Wrapper(std::move(env), "RescaleAction"), min_action_(min_action), max_action_(max_action) {
  const std::string name = "RescaleAction(" + spec_.id + ")";
  // A copy: spec_.action_space is replaced below (and GCC 13 sees a reference into a temporary).
  const Box box = expect_box(spec_.action_space, name + ": action space");
  if (!(min_action < max_action) || !std::isfinite(min_action) || !std::isfinite(max_action)) {
    throw std::invalid_argument(name + ": needs finite min_action < max_action, got [" +
                                std::to_string(min_action) + ", " + std::to_string(max_action) +
                                "]");
  }
  for (std::size_t i = 0; i < box.low.size(); ++i) {
    if (!std::isfinite(box.low[i]) || !std::isfinite(box.high[i])) {
      throw std::invalid_argument(name + ": the action space " + describe(box) +
                                  " is unbounded; only finite bounds can be rescaled");
    }
  }
  low_ = box.low;
  high_ = box.high;
  rescaled_.resize(low_.size());
  const auto n = low_.size();
  spec_.action_space = Box{box.shape, std::vector<float>(n, static_cast<float>(min_action)),
                           std::vector<float>(n, static_cast<float>(max_action))};
}

StepResult RescaleAction::step(const ActionRef& action, core::TypedPtr observation) {
  check_action(spec_, action);
  for (std::size_t i = 0; i < rescaled_.size(); ++i) {
    // Gymnasium's formula: low + (high - low) * ((a - min) / (max - min)), then clipped.
    const double low = low_[i];
    const double high = high_[i];
    const double value =
        low + (high - low) * ((action.values[i] - min_action_) / (max_action_ - min_action_));
    rescaled_[i] = static_cast<float>(std::clamp(value, low, high));
  }
  return inner_env().step({0, rescaled_.data(), action.size}, observation);
}

}  // namespace mnrl::envs
