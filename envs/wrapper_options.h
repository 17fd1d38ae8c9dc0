#pragma once

#include <string>
#include <vector>

#include "core/config.h"

namespace mnrl::envs {

// One entry of `env.wrappers` in a config: its type and the options of that type. Env-level
// wrappers (time_limit, clip_action, rescale_action, flicker, frame_stack) wrap each env in list
// order, innermost first; batch wrappers (episode_statistics, normalize_observation,
// normalize_reward) follow them and work on the whole vector env's batch.
struct WrapperOptions {
  std::string type;
  int max_episode_steps = 0;     // time_limit
  double min_action = -1.0;      // rescale_action
  double max_action = 1.0;       // rescale_action
  int num_frames = 4;            // frame_stack
  double probability = 0.5;      // flicker
  double clip = 10.0;            // normalize_observation, normalize_reward
  double gamma = 0.99;           // normalize_reward
  double epsilon = 1e-8;         // normalize_observation, normalize_reward

  // Reads `type`, then the keys of that type only (every key while the type is still unknown,
  // so a missing type is reported as such by check_wrappers rather than as unknown keys).
  void visit(core::ConfigVisitor& v);

  bool is_batch_wrapper() const;
};

// Every wrapper type, env-level ones first.
const std::vector<std::string>& wrapper_types();

// Throws std::invalid_argument naming the entry ("env.wrappers[2]: ...") for a missing type, a
// time_limit without max_episode_steps, an env-level wrapper after a batch wrapper, a batch
// wrapper given twice, or rescale_action with min_action >= max_action.
void check_wrappers(const std::vector<WrapperOptions>& wrappers);

}  // namespace mnrl::envs
