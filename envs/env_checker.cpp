#include "envs/env_checker.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <utility>

#include "envs/env_checker_detail.h"

namespace mnrl::envs {
namespace env_check_detail {
namespace {

// Larger spaces are refused rather than allocated (an Atari frame stack is ~30k floats).
constexpr std::int64_t kMaxFlatSize = std::int64_t{1} << 24;

// Builds one env and checks its spec; the spec, when valid, is what the other checks use.
EnvCheckResult check_spec(const EnvMaker& make_env, std::optional<EnvSpec>& spec_out,
                          std::string& env_id) {
  const Built built = build(make_env);
  if (!built.env) return failed(names::kSpec, built.error);
  EnvSpec spec;
  if (const Thrown t = call([&] { spec = built.env->spec(); })) {
    return failed(names::kSpec, "spec() threw " + t.describe());
  }
  if (!spec.id.empty()) env_id = spec.id;
  if (const Thrown t = call([&] { spec.validate(); })) return failed(names::kSpec, t.message);
  for (const Space* space : {&spec.observation_space, &spec.action_space}) {
    if (flat_size(*space) > kMaxFlatSize) {
      return failed(names::kSpec,
                    std::string(space == &spec.action_space ? "action" : "observation") +
                        " space " + describe(*space) + " has " + std::to_string(flat_size(*space)) +
                        " floats; the checker supports at most " + std::to_string(kMaxFlatSize));
    }
  }
  spec_out = spec;
  std::string detail =
      "observation " + describe(spec.observation_space) + ", action " + describe(spec.action_space);
  if (spec.max_episode_steps > 0) {
    detail += ", time limit " + std::to_string(spec.max_episode_steps);
  }
  return passed(names::kSpec, detail);
}

}  // namespace
}  // namespace env_check_detail

bool EnvCheckReport::passed() const {
  return std::none_of(results.begin(), results.end(),
                      [](const EnvCheckResult& r) { return r.failed(); });
}

const EnvCheckResult* EnvCheckReport::find(const std::string& check) const {
  for (const auto& r : results) {
    if (r.check == check) return &r;
  }
  return nullptr;
}

EnvCheckReport check_env(const EnvMaker& make_env, const EnvCheckOptions& options) {
  if (options.steps < 1) {
    throw std::invalid_argument("check_env: steps is " + std::to_string(options.steps) +
                                ", must be >= 1");
  }
  namespace detail = env_check_detail;
  EnvCheckReport report;
  std::optional<EnvSpec> spec;
  report.results.push_back(detail::check_spec(make_env, spec, report.env_id));
  if (!spec) {
    report.results.back().detail += "; the other checks need a valid spec and were not run";
    return report;
  }
  report.results.push_back(detail::check_step_before_reset(make_env, *spec, options));
  for (auto& r : detail::check_rollout(make_env, *spec, options))
    report.results.push_back(std::move(r));
  report.results.push_back(detail::check_step_after_end(make_env, *spec, options));
  report.results.push_back(detail::check_determinism(make_env, *spec, options));
  report.results.push_back(detail::check_saved_state(make_env, *spec, options));
  report.results.push_back(detail::check_invalid_actions(make_env, *spec, options));
  return report;
}

EnvCheckReport check_registered_env(const std::string& id, const EnvCheckOptions& options,
                                    const core::Kwargs& kwargs, const Registry& registry) {
  if (!registry.contains(id)) registry.make(id);  // throws the "unknown environment" message
  try {
    registry.make(id, kwargs);
  } catch (const core::KwargError&) {
    throw;  // a usage error, not a broken env
  } catch (const std::exception&) {
    // the spec check reports it
  }
  EnvCheckReport report = check_env([&] { return registry.make(id, kwargs); }, options);
  if (report.env_id.empty()) report.env_id = id;
  return report;
}

}  // namespace mnrl::envs
