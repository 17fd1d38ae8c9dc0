#include "envs/time_limit.h"

#include <stdexcept>
#include <string>

namespace mnrl::envs {

TimeLimit::TimeLimit(std::unique_ptr<Env> env, int max_episode_steps)
    : Wrapper(std::move(env), "TimeLimit") {
  if (max_episode_steps < 1) {
    throw std::invalid_argument("TimeLimit(" + spec_.id + "): max_episode_steps is " +
                                std::to_string(max_episode_steps) + ", must be >= 1");
  }
  spec_.max_episode_steps = max_episode_steps;
}

void TimeLimit::reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) {
  inner_env().reset(observation, seed);
  elapsed_steps_ = 0;
}

StepResult TimeLimit::step(const ActionRef& action, core::TypedPtr observation) {
  if (elapsed_steps_ < 0 || elapsed_steps_ >= spec_.max_episode_steps) {
    throw std::logic_error(spec_.id + ": step() called " +
                           (elapsed_steps_ < 0
                                ? std::string("before reset()")
                                : "after the episode was truncated at " +
                                      std::to_string(spec_.max_episode_steps) + " steps") +
                           "; call reset() first");
  }
  StepResult result = inner_env().step(action, observation);
  ++elapsed_steps_;
  if (elapsed_steps_ >= spec_.max_episode_steps) result.truncated = true;
  return result;
}

}  // namespace mnrl::envs
