// Returns of a uniformly random policy on registered envs: the baseline a learning curve is
// read against (docs/environments.md records them).
//   random_returns EPISODES ID...      e.g. random_returns 1000 LunarLander-v2 BipedalWalker-v3
#include <cstdio>
#include <cstdlib>
#include <string>

#include "envs/random_policy.h"
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
    const auto r = mnrl::envs::random_policy_returns(*env, episodes, 12345);
    std::printf(
        "%s: %d episodes (seeds 0-%d), return %.3f +- %.3f (min %.1f, max %.1f), mean length "
        "%.1f\n",
        id.c_str(), episodes, episodes - 1, r.mean_return, r.std_return, r.min_return, r.max_return,
        r.mean_length);
  }
  return 0;
}
