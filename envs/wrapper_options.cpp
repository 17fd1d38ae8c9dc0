#include "envs/wrapper_options.h"

#include <stdexcept>

#include "core/text.h"

namespace mnrl::envs {

const std::vector<std::string>& wrapper_types() {
  static const std::vector<std::string> types = {
      "time_limit",  "clip_action",        "rescale_action",        "flicker",
      "frame_stack", "episode_statistics", "normalize_observation", "normalize_reward"};
  return types;
}

bool WrapperOptions::is_batch_wrapper() const {
  return type == "episode_statistics" || type == "normalize_observation" ||
         type == "normalize_reward";
}

void WrapperOptions::visit(core::ConfigVisitor& v) {
  v.field("type", type, "wrapper type", core::one_of(wrapper_types()));
  const auto is = [this](const char* name) { return type.empty() || type == name; };
  if (is("time_limit")) {
    v.field("max_episode_steps", max_episode_steps, "truncate episodes after this many steps",
            core::at_least(1));
  }
  if (is("rescale_action")) {
    v.field("min_action", min_action, "lowest action the agent gives");
    v.field("max_action", max_action, "highest action the agent gives");
  }
  if (is("flicker")) {
    v.field("probability", probability, "chance that an observation is replaced by zeros",
            core::between(0, 1));
  }
  if (is("frame_stack")) {
    v.field("num_frames", num_frames, "observations stacked, newest last", core::at_least(1));
  }
  if (is("normalize_reward")) {
    v.field("gamma", gamma, "discount of the return whose std scales rewards",
            core::between(0, 1));
  }
  if (is("normalize_observation") || is("normalize_reward")) {
    v.field("clip", clip, "normalized values are clipped to [-clip, clip]",
            core::greater_than(0));
    v.field("epsilon", epsilon, "added to the variance before the square root",
            core::greater_than(0));
  }
}

void check_wrappers(const std::vector<WrapperOptions>& wrappers) {
  std::vector<std::string> batch_types_seen;
  for (std::size_t i = 0; i < wrappers.size(); ++i) {
    const WrapperOptions& wrapper = wrappers[i];
    const std::string name = "env.wrappers[" + std::to_string(i) + "]";
    if (wrapper.type.empty()) {
      throw std::invalid_argument(name + " has no type; write '- {type: ..., ...}' with a type "
                                  "among: " + core::join(wrapper_types()));
    }
    if (wrapper.type == "time_limit" && wrapper.max_episode_steps < 1) {
      throw std::invalid_argument(name + " (time_limit) needs max_episode_steps >= 1");
    }
    if (wrapper.type == "rescale_action" && !(wrapper.min_action < wrapper.max_action)) {
      throw std::invalid_argument(name + " (rescale_action) needs min_action < max_action");
    }
    if (wrapper.is_batch_wrapper()) {
      for (const auto& seen : batch_types_seen) {
        if (seen == wrapper.type) {
          throw std::invalid_argument(name + ": " + wrapper.type + " is listed twice");
        }
      }
      batch_types_seen.push_back(wrapper.type);
    } else if (!batch_types_seen.empty()) {
      throw std::invalid_argument(
          name + ": " + wrapper.type + " wraps each env, so it must come before the batch "
          "wrappers (" + core::join(batch_types_seen) + "), which work on all envs at once");
    }
  }
}

}  // namespace mnrl::envs
