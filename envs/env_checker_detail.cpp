#include "envs/env_checker_detail.h"

#include <charconv>
#include <tuple>

#include "core/scalar_text.h"

namespace mnrl::envs::env_check_detail {

std::string format_number(float value) { return core::format_float(value); }

std::string format_number(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

std::string format_flags(const StepResult& r) {
  return std::string("terminated = ") + (r.terminated ? "true" : "false") +
         ", truncated = " + (r.truncated ? "true" : "false");
}

std::string plural(std::int64_t count, const std::string& word) {
  return std::to_string(count) + " " + word + (count == 1 ? "" : "s");
}

Built build(const EnvMaker& make_env, const EnvSpec* expected) {
  Built built;
  const Thrown thrown = call([&] {
    built.env = make_env();
    if (!built.env || !expected) return;
    const EnvSpec& spec = built.env->spec();
    for (const auto& [what, space, first] :
         {std::tuple{"observation", &spec.observation_space, &expected->observation_space},
          std::tuple{"action", &spec.action_space, &expected->action_space}}) {
      if (*space != *first) {
        built.error = std::string("another env from the same factory has the ") + what + " space " +
                      describe(*space) + " instead of " + describe(*first);
        built.env.reset();
        return;
      }
    }
  });
  if (thrown) {
    built.error = "building the env threw " + thrown.describe();
    built.env.reset();
  } else if (!built.env && built.error.empty()) {
    built.error = "the factory returned no env (null)";
  }
  return built;
}

}  // namespace mnrl::envs::env_check_detail
