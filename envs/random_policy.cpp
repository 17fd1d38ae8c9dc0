#include "envs/random_policy.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/typed_rows.h"
#include "envs/action_sampler.h"

namespace mnrl::envs {

RandomPolicyReturns random_policy_returns(Env& env, int episodes, std::uint64_t action_seed) {
  const EnvSpec& spec = env.spec();
  core::TypedRows observation(element_dtype(spec.observation_space), 1,
                              static_cast<std::size_t>(flat_size(spec.observation_space)));
  ActionSampler sampler(spec.action_space);
  core::Rng rng(action_seed);
  RandomPolicyReturns out;
  out.episodes = episodes;
  out.min_return = std::numeric_limits<double>::infinity();
  out.max_return = -std::numeric_limits<double>::infinity();
  double sum = 0.0, sum_of_squares = 0.0, steps = 0.0;
  for (int episode = 0; episode < episodes; ++episode) {
    env.reset(observation.row(0), static_cast<std::uint64_t>(episode));
    double total = 0.0;
    for (bool done = false; !done; ++steps) {
      const StepResult result = env.step(sampler.sample(rng), observation.row(0));
      total += result.reward;
      done = result.terminated || result.truncated;
    }
    sum += total;
    sum_of_squares += total * total;
    out.min_return = std::min(out.min_return, total);
    out.max_return = std::max(out.max_return, total);
  }
  out.mean_return = sum / episodes;
  out.std_return =
      std::sqrt(std::max(0.0, sum_of_squares / episodes - out.mean_return * out.mean_return));
  out.mean_length = steps / episodes;
  return out;
}

}  // namespace mnrl::envs
