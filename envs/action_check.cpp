#include "envs/action_check.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace mnrl::envs {
namespace {

[[noreturn]] void reject(const EnvSpec& spec, const std::string& problem) {
  throw std::invalid_argument(spec.id + ": invalid action: " + problem + " (action space " +
                              describe(spec.action_space) + ")");
}

}  // namespace

void check_action(const EnvSpec& spec, const ActionRef& action) {
  if (const auto* discrete = std::get_if<Discrete>(&spec.action_space)) {
    if (action.index < 0 || action.index >= discrete->n) {
      reject(spec, "index " + std::to_string(action.index) + " is outside [0, " +
                       std::to_string(discrete->n) + ")");
    }
    return;
  }
  const std::int64_t expected = flat_size(spec.action_space);
  if (action.values == nullptr) reject(spec, "no values given");
  if (action.size != expected) {
    reject(spec, std::to_string(action.size) + " values given, expected " +
                     std::to_string(expected));
  }
  for (std::int64_t i = 0; i < action.size; ++i) {
    if (std::isnan(action.values[i])) reject(spec, "value " + std::to_string(i) + " is NaN");
  }
}

}  // namespace mnrl::envs
