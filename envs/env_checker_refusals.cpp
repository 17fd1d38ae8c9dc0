// The checks that the env refuses what it must: step() before the first reset(), and invalid
// actions. (Step after the episode ended needs a rollout: env_checker_rollout.cpp.)
#include <limits>

#include "core/text.h"
#include "envs/action_sampler.h"
#include "envs/env_checker_detail.h"

namespace mnrl::envs::env_check_detail {

EnvCheckResult check_step_before_reset(const EnvMaker& make_env, const EnvSpec& spec,
                                       const EnvCheckOptions& options) {
  const Built built = build(make_env, &spec);
  if (!built.env) return failed(names::kStepBeforeReset, built.error);
  ObservationBuffer observation(spec.observation_space);
  observation.arm();
  ActionSampler sampler(spec.action_space);
  core::Rng rng = action_rng(options);
  StepResult r;
  const Thrown t = call([&] { r = built.env->step(sampler.sample(rng), observation.data()); });
  if (!t) {
    return failed(names::kStepBeforeReset,
                  "step() on a fresh env returned normally (reward " + format_number(r.reward) +
                      "); it must throw std::logic_error until reset() is called");
  }
  if (t.kind != Thrown::Kind::kLogicError) {
    return failed(names::kStepBeforeReset,
                  "step() on a fresh env threw " + t.describe() + "; expected std::logic_error");
  }
  return passed(names::kStepBeforeReset, "threw " + t.describe());
}

namespace {

// Actions outside the action space, each with its description; Box values live in `storage`
// (moving these keeps the values where the actions point).
struct InvalidActions {
  std::vector<std::pair<std::string, ActionRef>> actions;
  std::vector<std::vector<float>> storage;
};

InvalidActions invalid_actions(const EnvSpec& spec, const EnvCheckOptions& options) {
  InvalidActions invalid;
  if (const auto* discrete = std::get_if<Discrete>(&spec.action_space)) {
    invalid.actions.push_back({"index " + std::to_string(discrete->n), {discrete->n, nullptr, 0}});
    invalid.actions.push_back({"index -1", {-1, nullptr, 0}});
    return invalid;
  }
  ActionSampler sampler(spec.action_space);
  core::Rng rng = action_rng(options);
  const ActionRef valid = sampler.sample(rng);
  const std::int64_t size = valid.size;
  const auto stored = [&](std::vector<float> values) {
    invalid.storage.push_back(std::move(values));
    return invalid.storage.back().data();
  };
  std::vector<float> values(valid.values, valid.values + size);
  std::vector<float> with_nan = values;
  with_nan[0] = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> longer = values;
  longer.push_back(values[0]);
  invalid.actions.push_back({"a NaN value", {0, stored(with_nan), size}});
  invalid.actions.push_back({plural(size + 1, "value") + " instead of " + std::to_string(size),
                             {0, stored(longer), size + 1}});
  // One value too few; the buffer still holds `size` values, so a careless env reads no further
  // than it would anyway.
  invalid.actions.push_back({plural(size - 1, "value") + " instead of " + std::to_string(size),
                             {0, stored(values), size - 1}});
  return invalid;
}

}  // namespace

EnvCheckResult check_invalid_actions(const EnvMaker& make_env, const EnvSpec& spec,
                                     const EnvCheckOptions& options) {
  const char* check = names::kInvalidActions;
  const Built built = build(make_env, &spec);
  if (!built.env) return failed(check, built.error);
  ObservationBuffer observation(spec.observation_space);
  const InvalidActions invalid = invalid_actions(spec, options);

  Violations violations;
  std::vector<std::string> refused;
  for (const auto& [what, action] : invalid.actions) {
    observation.arm();
    if (const Thrown t = call([&] { built.env->reset(observation.data(), options.seed); })) {
      return skipped(check, "not checked: reset() threw " + t.describe() + " (see '" +
                                names::kNoErrors + "')");
    }
    observation.arm();
    const ActionRef a = action;
    StepResult r;
    const Thrown t = call([&] { r = built.env->step(a, observation.data()); });
    if (!t) {
      violations.add("invalid action (" + what + ") was accepted: step() returned reward " +
                     format_number(r.reward) + "; it must throw std::invalid_argument");
    } else if (t.kind != Thrown::Kind::kInvalidArgument) {
      violations.add("invalid action (" + what + "): step() threw " + t.describe() +
                     "; expected std::invalid_argument");
    } else {
      refused.push_back(what);
    }
  }
  if (violations.count() > 0) return failed(check, violations.summary());
  return passed(check, "refused " + core::listed(refused, "and"));
}

}  // namespace mnrl::envs::env_check_detail
