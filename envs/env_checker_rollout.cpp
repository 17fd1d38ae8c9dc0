// The checks driven by rollouts of random actions: no errors, exact observation writes,
// observations in the space, finite rewards, the time limit, and step after the episode ended.
#include <algorithm>
#include <cmath>
#include <optional>

#include "envs/action_sampler.h"
#include "envs/env_checker_detail.h"

namespace mnrl::envs::env_check_detail {
namespace {

// Steps the "step after the episode ended" check may add to reach the time limit.
constexpr std::int64_t kMaxStepsToAnEnd = 1'000'000;

}  // namespace

// One rollout of random actions feeds five checks: no errors, exact observation writes,
// observations in the space, finite rewards, and the time limit.
std::vector<EnvCheckResult> check_rollout(const EnvMaker& make_env, const EnvSpec& spec,
                                          const EnvCheckOptions& options) {
  Violations errors, writes, in_space, rewards, time_limit;
  const int limit = spec.max_episode_steps;
  std::int64_t steps_done = 0;
  std::int64_t episodes_ended = 0;
  std::int64_t truncated_at_limit = 0;
  bool stopped = false;

  const Built built = build(make_env, &spec);
  if (!built.env) {
    errors.add(built.error);
    stopped = true;
  }
  ObservationBuffer observation(spec.observation_space);
  ActionSampler sampler(spec.action_space);
  core::Rng rng = action_rng(options);
  Position pos;

  const auto inspect_observation = [&] {
    const std::string where = pos.describe();
    const std::size_t n = observation.size();
    std::size_t unwritten = 0;
    std::size_t first_unwritten = n;
    for (std::size_t i = 0; i < n; ++i) {
      if (observation.written(i)) continue;
      if (unwritten++ == 0) first_unwritten = i;
    }
    if (unwritten > 0) {
      writes.add(where + ": " + std::to_string(unwritten) + " of " + std::to_string(n) +
                 " observation elements not written (first: element " +
                 std::to_string(first_unwritten) + ")");
    }
    if (const std::int64_t guard = observation.first_overwritten_guard(); guard >= 0) {
      writes.add(where + ": wrote past the end of the observation (" + std::to_string(n) +
                 " elements): element " + std::to_string(n + static_cast<std::size_t>(guard)) +
                 " was overwritten");
    }

    const OutsideSpace outside =
        find_outside(spec.observation_space, observation.values(),
                     [&](std::size_t i) { return !observation.written(i); });  // reported above
    if (outside.count > 0) {
      in_space.add(where + ": " + outside.first +
                   (outside.count > 1
                        ? " (and " +
                              plural(static_cast<std::int64_t>(outside.count) - 1, "more element") +
                              ")"
                        : ""));
    }
  };

  const auto reset = [&](std::optional<std::uint64_t> seed) {
    observation.arm();
    if (const Thrown t = call([&] { built.env->reset(observation.data(), seed); })) {
      errors.add(pos.describe() + ": reset() threw " + t.describe());
      stopped = true;
      return;
    }
    inspect_observation();
  };

  // An episode that went past the limit without truncated, reported when it ends.
  bool over_limit = false;
  const auto report_over_limit = [&](const char* how) {
    if (!over_limit) return;
    time_limit.add("episode " + std::to_string(pos.episode) + " " + how + " " +
                   std::to_string(pos.step) +
                   " steps, past max_episode_steps = " + std::to_string(limit) + " (step " +
                   std::to_string(limit) + " did not report truncated)");
    over_limit = false;
  };

  if (!stopped) reset(options.seed);
  bool needs_reset = false;
  while (!stopped && steps_done < options.steps) {
    if (needs_reset) {
      ++pos.episode;
      pos.step = 0;
      reset(std::nullopt);
      needs_reset = false;
      if (stopped) break;
    }
    const ActionRef action = sampler.sample(rng);
    observation.arm();
    ++pos.step;
    StepResult r;
    if (const Thrown t = call([&] { r = built.env->step(action, observation.data()); })) {
      errors.add(pos.describe() + ": step() threw " + t.describe());
      stopped = true;
      break;
    }
    ++steps_done;
    inspect_observation();
    if (!std::isfinite(r.reward)) {
      rewards.add(pos.describe() + ": reward = " + format_number(r.reward));
    }
    const bool ended = r.terminated || r.truncated;
    if (limit > 0 && pos.step == limit) {
      if (r.truncated) {
        ++truncated_at_limit;
      } else if (ended) {
        time_limit.add(
            pos.describe() + ": the episode ended at max_episode_steps = " + std::to_string(limit) +
            " with " + format_flags(r) + "; the step that reaches the limit must report truncated");
      } else {
        over_limit = true;
      }
    }
    if (ended) {
      report_over_limit("ran");
      ++episodes_ended;
      needs_reset = true;
    }
  }
  report_over_limit("was still running after");

  const std::string coverage =
      plural(steps_done, "step") + " in " + plural(episodes_ended, "finished episode");
  const std::string stop_note = "not fully checked: an error stopped the rollout after " +
                                plural(steps_done, "step") + " (see '" + names::kNoErrors + "')";
  const auto result = [&](const char* check, const Violations& v, std::string pass_detail) {
    if (v.count() > 0) {
      return failed(check, v.summary() + (stopped ? " (" + stop_note + ")" : ""));
    }
    if (stopped) return skipped(check, stop_note);
    return passed(check, std::move(pass_detail));
  };

  std::vector<EnvCheckResult> results;
  results.push_back(errors.count() > 0
                        ? failed(names::kNoErrors,
                                 errors.summary() + " (after " + plural(steps_done, "step") + ")")
                        : passed(names::kNoErrors, coverage));
  results.push_back(result(names::kObservationWrites, writes, coverage));
  results.push_back(result(names::kObservationsInSpace, in_space, coverage));
  results.push_back(result(names::kFiniteRewards, rewards, coverage));
  std::string limit_detail = limit > 0 ? "limit " + std::to_string(limit) + "; " +
                                             plural(truncated_at_limit, "episode") +
                                             " reached it and reported truncated"
                                       : "no time limit (max_episode_steps = 0)";
  results.push_back(result(names::kTimeLimit, time_limit, limit_detail));
  return results;
}

EnvCheckResult check_step_after_end(const EnvMaker& make_env, const EnvSpec& spec,
                                    const EnvCheckOptions& options) {
  const char* check = names::kStepAfterEnd;
  const Built built = build(make_env, &spec);
  if (!built.env) return failed(check, built.error);
  // Long enough for an env that respects its time limit to end an episode (within reason).
  const std::int64_t steps = std::max<std::int64_t>(
      options.steps, std::min<std::int64_t>(spec.max_episode_steps, kMaxStepsToAnEnd));
  ObservationBuffer observation(spec.observation_space);
  ActionSampler sampler(spec.action_space);
  core::Rng rng = action_rng(options);
  Violations violations;
  Position pos;
  std::int64_t ends = 0;
  std::string stop;

  const auto reset = [&](std::optional<std::uint64_t> seed) {
    observation.arm();
    if (const Thrown t = call([&] { built.env->reset(observation.data(), seed); })) {
      stop = pos.describe() + ": reset() threw " + t.describe();
    }
  };
  reset(options.seed);
  for (std::int64_t i = 0; i < steps && stop.empty(); ++i) {
    ++pos.step;
    StepResult r;
    if (const Thrown t =
            call([&] { r = built.env->step(sampler.sample(rng), observation.data()); })) {
      stop = pos.describe() + ": step() threw " + t.describe();
      break;
    }
    if (!(r.terminated || r.truncated)) continue;
    ++ends;
    const std::string how = r.truncated ? "truncated" : "terminated";
    StepResult again;
    const Thrown t =
        call([&] { again = built.env->step(sampler.sample(rng), observation.data()); });
    if (!t) {
      violations.add(pos.describe() + " " + how + " the episode, then step() without reset() " +
                     "returned normally (reward " + format_number(again.reward) +
                     "); it must throw std::logic_error");
    } else if (t.kind != Thrown::Kind::kLogicError) {
      violations.add(pos.describe() + " " + how + " the episode, then step() without reset() " +
                     "threw " + t.describe() + "; expected std::logic_error");
    }
    ++pos.episode;
    pos.step = 0;
    reset(std::nullopt);
  }

  if (violations.count() > 0) return failed(check, violations.summary());
  if (!stop.empty()) {
    return skipped(check, "not fully checked: " + stop + " (see '" + names::kNoErrors + "')");
  }
  if (ends == 0) {
    return skipped(check, "no episode ended within " + plural(steps, "step"));
  }
  return passed(check, "refused after each of " + plural(ends, "episode end"));
}

}  // namespace mnrl::envs::env_check_detail
