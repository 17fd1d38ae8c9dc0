// Returns of a uniformly random policy on registered envs: the baseline a learning curve is
// read against (docs/environments.md records them).
//   random_returns EPISODES ID...      e.g. random_returns 1000 LunarLander-v2 BipedalWalker-v3
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/rng.h"
#include "envs/action_sampler.h"
#include "envs/registry.h"
#include "experiments/runs/physics_engines.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s EPISODES ID...\n", argv[0]);
    return 2;
  }
  const int episodes = std::atoi(argv[1]);
  // Also links the physics envs in (and so registers them).
  std::printf("physics engines: %s\n", mnrl::experiments::physics_engines_description().c_str());
  for (int arg = 2; arg < argc; ++arg) {
    const std::string id = argv[arg];
    auto env = mnrl::envs::Registry::global().make(id);
    const auto& spec = env->spec();
    std::vector<float> observation(mnrl::envs::flat_size(spec.observation_space));
    mnrl::envs::ActionSampler sampler(spec.action_space);
    mnrl::core::Rng rng(12345);
    std::vector<double> returns;
    double steps = 0;
    for (int episode = 0; episode < episodes; ++episode) {
      env->reset(observation.data(), static_cast<std::uint64_t>(episode));
      double total = 0;
      for (bool done = false; !done; ++steps) {
        const auto result = env->step(sampler.sample(rng), observation.data());
        total += result.reward;
        done = result.terminated || result.truncated;
      }
      returns.push_back(total);
    }
    double mean = 0;
    for (double r : returns) mean += r / episodes;
    double variance = 0;
    for (double r : returns) variance += (r - mean) * (r - mean) / episodes;
    std::printf(
        "%s: %d episodes (seeds 0-%d), return %.1f +- %.1f (min %.1f, max %.1f), mean length "
        "%.1f\n",
        id.c_str(), episodes, episodes - 1, mean, std::sqrt(variance),
        *std::min_element(returns.begin(), returns.end()),
        *std::max_element(returns.begin(), returns.end()), steps / episodes);
  }
  return 0;
}
