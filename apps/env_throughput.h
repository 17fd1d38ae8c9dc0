#pragma once

#include <cstdint>

#include "envs/env_options.h"

namespace mnrl::apps {

// Steps/s of one env built by make_env(options) (time limit and env-level wrappers included),
// over `steps` steps of random actions drawn before timing, resetting after each episode.
double single_env_steps_per_second(const envs::EnvOptions& options, std::int64_t steps);

// Env steps/s of make_vector_env(options) (options.num_envs envs on options.num_threads
// threads, auto-reset, batch wrappers) over about `steps` env steps of random actions.
double vector_env_steps_per_second(const envs::EnvOptions& options, std::int64_t steps);

}  // namespace mnrl::apps
