#include "envs/plugin_env_guard.h"

#include <cmath>
#include <exception>
#include <utility>

#include "core/scalar_text.h"
#include "core/text.h"
#include "envs/plugin_call.h"

namespace mnrl::envs {

PluginEnvGuard::PluginEnvGuard(std::unique_ptr<Env> env, std::string plugin_path)
    : Wrapper(std::move(env), "PluginEnvGuard"),
      plugin_path_(std::move(plugin_path)),
      description_("environment '" + spec_.id + "' from plugin '" + plugin_path_ + "'") {}

void PluginEnvGuard::reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) {
  ++episode_;
  step_ = 0;
  try {
    const PluginCall call(description_.c_str(), "reset()", &episode_, &step_);
    inner_env().reset(observation, seed);
  } catch (const std::exception& e) {
    fail("reset() threw " + core::type_name(e) + ": " + e.what());
  } catch (...) {
    fail("reset() threw something that is not a std::exception");
  }
  check_observation(observation, "reset()");
}

StepResult PluginEnvGuard::step(const ActionRef& action, core::TypedPtr observation) {
  ++step_;
  StepResult result;
  try {
    const PluginCall call(description_.c_str(), "step()", &episode_, &step_);
    result = inner_env().step(action, observation);
  } catch (const std::exception& e) {
    fail("step() threw " + core::type_name(e) + ": " + e.what());
  } catch (...) {
    fail("step() threw something that is not a std::exception");
  }
  if (!std::isfinite(result.reward)) {
    fail("step() returned the reward " + core::format_number(result.reward) +
         " (rewards must be finite)");
  }
  check_observation(observation, "step()");
  return result;
}

void PluginEnvGuard::check_observation(core::ConstTypedPtr observation, const char* call) const {
  // Fast path for a float Box (the common case): two comparisons per float, false for NaN.
  const auto* box = std::get_if<Box>(&spec_.observation_space);
  if (box && box->dtype == Dtype::float32) {
    const float* values = observation.floats();
    bool inside = true;
    for (std::size_t i = 0; i < box->low.size(); ++i) {
      inside &= values[i] >= box->low[i] && values[i] <= box->high[i];
    }
    if (inside) return;
  }
  const OutsideSpace outside = find_outside(spec_.observation_space, observation);
  if (outside.count == 0) return;
  fail(std::string(call) + " broke the declared observation space " +
       describe(spec_.observation_space) + ": " + outside.first);
}

void PluginEnvGuard::fail(const std::string& what) const {
  throw EnvContractError(description_ + ": " + what + " (episode " + std::to_string(episode_) +
                         ", step " + std::to_string(step_) + ")");
}

}  // namespace mnrl::envs
