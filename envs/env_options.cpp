#include "envs/env_options.h"

#include <stdexcept>
#include <string>

#include "envs/registry.h"

namespace mnrl::envs {

std::unique_ptr<VectorEnv> make_vector_env(const EnvOptions& options, std::uint64_t seed) {
  if (options.num_envs < 1) {
    throw std::invalid_argument("env.num_envs is " + std::to_string(options.num_envs) +
                                ", must be >= 1");
  }
  std::vector<std::unique_ptr<Env>> envs;
  envs.reserve(static_cast<std::size_t>(options.num_envs));
  for (int i = 0; i < options.num_envs; ++i) {
    envs.push_back(Registry::global().make(options.id, options.max_episode_steps));
  }
  return std::make_unique<VectorEnv>(std::move(envs), seed);
}

}  // namespace mnrl::envs
